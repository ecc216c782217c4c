import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { readFileSync } from "node:fs";

// A secret comes from NAME, or from the file named by NAME_FILE (docker/Kubernetes secrets are mounted as files, and a
// file keeps the value out of `ps e` and container inspection). Surrounding whitespace is dropped: files end in "\n".
export function readSecret(name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const direct = env[name];
  if (direct !== undefined && direct !== "") return direct.trim();
  const file = env[`${name}_FILE`];
  if (file === undefined || file === "") return undefined;
  const value = readFileSync(file, "utf8").trim();
  if (!value) throw new Error(`${name}_FILE names an empty file`);
  return value;
}

// Short secrets can be guessed over the network; generated ones are 256 bits.
export const MIN_SECRET_LENGTH = 16;

export function checkSecretStrength(name: string, value: string): string {
  if (value.length < MIN_SECRET_LENGTH) throw new Error(`${name} must be at least ${MIN_SECRET_LENGTH} characters`);
  return value;
}

export function requireSecret(name: string, env: NodeJS.ProcessEnv = process.env, why = ""): string {
  const value = readSecret(name, env);
  if (value === undefined) throw new Error(`${name} (or ${name}_FILE) is required${why ? `: ${why}` : ""}`);
  return checkSecretStrength(name, value);
}

export const newSecret = (): string => randomBytes(32).toString("base64url");

// What a service keeps to recognise a secret without being able to present it: SHA-256, hex. The secrets are 256
// random bits, so a fast hash is enough (no password stretching needed).
export const secretDigest = (secret: string): string => createHash("sha256").update(secret).digest("hex");

// Constant time whatever the presented value: both sides are fixed-length digests, so neither the secret's length nor
// its content leaks through timing (timingSafeEqual alone throws on a length mismatch).
export function matchesDigest(presented: string, digestHex: string): boolean {
  const a = createHash("sha256").update(presented).digest();
  const b = Buffer.from(digestHex, "hex");
  return b.length === a.length && timingSafeEqual(a, b);
}
