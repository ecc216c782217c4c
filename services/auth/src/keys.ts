import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

// API keys are 256 bits from the OS CSPRNG. We store only their SHA-256 digest. A slow KDF (bcrypt, scrypt, argon2)
// exists to make guessing *low-entropy* secrets (passwords) expensive after a database leak; a 2^256 key space cannot
// be searched no matter how fast the hash is, so a single fast SHA-256 is as safe here and keeps every request's
// authentication a cheap, constant-cost lookup by digest.
export const KEY_PREFIX = "cva_";
const KEY_BYTES = 32;

export function generateApiKey(): string {
  return KEY_PREFIX + randomBytes(KEY_BYTES).toString("base64url");
}

// Public, short, non-secret identifier shown in listings and logs (48 random bits; uniqueness enforced on create).
export function generateKeyId(): string {
  return "key_" + randomBytes(6).toString("hex");
}

export function digestKey(apiKey: string): Buffer {
  return createHash("sha256").update(apiKey, "utf8").digest();
}

export function sameDigest(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

export const KEY_ID_PATTERN = /^key_[0-9a-f]{12}$/;
