export { createAuthStore, defaultMonthlyQuotaFromEnv, DEFAULT_MONTHLY_QUOTA, BUCKET_KEYS, BUCKET_CUSTOMERS, BUCKET_QUOTA } from "./store.ts";
export type { AuthStore, AuthStoreOptions } from "./store.ts";
export type { ApiKeyInfo, CustomerInfo, ReserveResult } from "./types.ts";
export { AuthStoreError } from "./errors.ts";
export { createAuthService } from "./service.ts";
export { registerAuthRoutes } from "./routes.ts";
export { AUTH_ADMIN_METHODS } from "./access.ts";
