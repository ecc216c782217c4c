import { credentialsFor, newSecret } from "../credentials/index.ts";

// Random per test process. Clients present the secrets (withCredential(testSecrets.service)); hosts are given only
// their digests, exactly as main.ts is with CVA_SERVICE_SECRET_SHA256 / CVA_ADMIN_SECRET_SHA256.
export const testSecrets = { service: newSecret(), admin: newSecret() };
export const testCredentials = credentialsFor(testSecrets);
