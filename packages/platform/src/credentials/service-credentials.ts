import { checkSecretStrength, readSecret, secretDigest } from "./secret.ts";

// What an internal gRPC service accepts, kept as SHA-256 digests: a service checks the credential but cannot present
// it, so a compromised scanner holding its own configuration cannot call report-store or auth with it. `service` is
// presented by internal callers (the edge); `admin` by the operator for AuthService's key and quota RPCs — unset,
// those are refused.
export interface ServiceCredentials {
  serviceDigest: string;
  adminDigest?: string;
}

export const SERVICE_SECRET_ENV = "CVA_SERVICE_SECRET";
export const ADMIN_SECRET_ENV = "CVA_ADMIN_SECRET";
// The digest-only form services are given: CVA_SERVICE_SECRET_SHA256, CVA_ADMIN_SECRET_SHA256.
export const digestVar = (name: string) => `${name}_SHA256`;

const HEX256 = /^[0-9a-f]{64}$/;

// NAME (the secret, hashed here) or NAME_SHA256 (its digest, hex); either may come from a *_FILE.
function digestFromEnv(name: string, env: NodeJS.ProcessEnv): string | undefined {
  const secret = readSecret(name, env);
  if (secret !== undefined) return secretDigest(checkSecretStrength(name, secret));
  const digest = readSecret(digestVar(name), env)?.toLowerCase();
  if (digest === undefined) return undefined;
  if (!HEX256.test(digest)) throw new Error(`${digestVar(name)} must be a SHA-256 digest in hex (64 characters)`);
  return digest;
}

// Fails at start-up without a service credential: an internal service never runs open.
export function serviceCredentialsFromEnv(env: NodeJS.ProcessEnv = process.env): ServiceCredentials {
  const serviceDigest = digestFromEnv(SERVICE_SECRET_ENV, env);
  if (!serviceDigest) {
    throw new Error(`${SERVICE_SECRET_ENV} or ${digestVar(SERVICE_SECRET_ENV)} is required: internal services refuse to run without a credential (\`npm start\` generates one in .data/secrets.env)`);
  }
  const adminDigest = digestFromEnv(ADMIN_SECRET_ENV, env);
  return adminDigest ? { serviceDigest, adminDigest } : { serviceDigest };
}

// A caller (the edge) needs the secret itself.
export function serviceSecretFromEnv(env: NodeJS.ProcessEnv = process.env): string {
  const secret = readSecret(SERVICE_SECRET_ENV, env);
  if (secret === undefined) throw new Error(`${SERVICE_SECRET_ENV} (or ${SERVICE_SECRET_ENV}_FILE) is required: the edge authenticates to auth and report-store with it`);
  return checkSecretStrength(SERVICE_SECRET_ENV, secret);
}

// For tests and the stack scripts, which hold the secrets: the digests a service is given.
export const credentialsFor = (secrets: { service: string; admin?: string }): ServiceCredentials =>
  secrets.admin ? { serviceDigest: secretDigest(secrets.service), adminDigest: secretDigest(secrets.admin) } : { serviceDigest: secretDigest(secrets.service) };
