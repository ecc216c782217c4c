import { auth } from "@cva/contracts";
import { bindHostFromEnv, connectNats, createLogger, envInt, exitOnSignals, loadCommonConfig, serviceCredentialsFromEnv, startServiceHost } from "@cva/platform";
import { AUTH_ADMIN_METHODS } from "./access.ts";
import { reservationSettingsFromEnv, startReservationReaper } from "./reaper.ts";
import { registerAuthRoutes } from "./routes.ts";
import { createAuthStore, defaultMonthlyQuotaFromEnv } from "./store.ts";

// Auth service process: API keys, customers and monthly quotas in NATS KV, served on AUTH_PORT (Connect + gRPC).
const logger = createLogger("auth");
const { natsUrl, natsAuth } = loadCommonConfig();
const port = envInt("AUTH_PORT", 9101);
const metricsPort = envInt("METRICS_PORT", 9201);
const defaultMonthlyQuota = defaultMonthlyQuotaFromEnv();
const reservations = reservationSettingsFromEnv();
const credentials = serviceCredentialsFromEnv();
if (!credentials.adminDigest) logger.warn("neither CVA_ADMIN_SECRET nor CVA_ADMIN_SECRET_SHA256 is set: key and quota RPCs are refused");

const nc = await connectNats(natsUrl, "auth", { auth: natsAuth });
const store = await createAuthStore(nc, { defaultMonthlyQuota, reservationTtlMs: reservations.ttlMs });
// Every replica reaps; compare-and-swap on each reservation makes one of them refund it.
const reaper = await startReservationReaper(store, { intervalMs: reservations.reapIntervalMs, logger });
const host = await startServiceHost({
  name: "auth",
  port,
  metricsPort,
  host: bindHostFromEnv(),
  credentials,
  adminMethods: AUTH_ADMIN_METHODS,
  logger,
  serviceNames: [auth.AuthService.typeName],
  register: (router) => registerAuthRoutes(router, store),
  ready: async () => !nc.isClosed(),
});

exitOnSignals(logger, "auth", async () => {
  await host.close();
  await reaper.stop();
  await nc.drain();
});
