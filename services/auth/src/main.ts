import { auth } from "@cva/contracts";
import { connectNats, createLogger, envInt, exitOnSignals, loadCommonConfig, startServiceHost } from "@cva/platform";
import { registerAuthRoutes } from "./routes.ts";
import { createAuthStore, defaultMonthlyQuotaFromEnv } from "./store.ts";

// Auth service process: API keys, customers and monthly quotas in NATS KV, served on AUTH_PORT (Connect + gRPC).
const logger = createLogger("auth");
const { natsUrl } = loadCommonConfig();
const port = envInt("AUTH_PORT", 9101);
const metricsPort = envInt("METRICS_PORT", 9201);
const defaultMonthlyQuota = defaultMonthlyQuotaFromEnv();

const nc = await connectNats(natsUrl, "auth");
const store = await createAuthStore(nc, { defaultMonthlyQuota });
const host = await startServiceHost({
  name: "auth",
  port,
  metricsPort,
  logger,
  serviceNames: [auth.AuthService.typeName],
  register: (router) => registerAuthRoutes(router, store, logger),
  ready: async () => !nc.isClosed(),
});

exitOnSignals(logger, "auth", async () => {
  await host.close();
  await nc.drain();
});
