export { createAuthStore, defaultMonthlyQuotaFromEnv, DEFAULT_MONTHLY_QUOTA } from "./store.ts";
export type { AuthStore, AuthStoreOptions } from "./store.ts";
export type { ApiKeyInfo, CustomerInfo, HeldReservation, ReserveOptions, ReserveResult } from "./types.ts";
export { startReservationReaper, reservationSettingsFromEnv, type ReservationReaper } from "./reaper.ts";
export { DEFAULT_RESERVATION_TTL_MS, MAX_RESERVATION_TTL_MS, type SettleResult } from "./reservations.ts";
export { IDEMPOTENCY_WINDOW_MS } from "./idempotency.ts";
export { createAuthService } from "./service.ts";
export { registerAuthRoutes } from "./routes.ts";
export { AUTH_ADMIN_METHODS } from "./access.ts";
