import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { NatsConnection } from "@cva/platform";
import { createAuthStore, defaultMonthlyQuotaFromEnv } from "@cva/auth";

// Keys are stored only as digests, so the plaintext of the development key is kept in a local, git-ignored file
// (mode 0600) to print the same key on every `npm start`. A key that no longer authenticates is replaced.
export async function ensureDevKey(nc: NatsConnection, file: string): Promise<string> {
  const store = await createAuthStore(nc, { defaultMonthlyQuota: defaultMonthlyQuotaFromEnv() });
  if (existsSync(file)) {
    const key = readFileSync(file, "utf8").trim();
    if (key && (await store.authenticate(key))) return key;
  }
  const { apiKey } = await store.createKey("dev");
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, apiKey + "\n", { mode: 0o600 });
  return apiKey;
}
