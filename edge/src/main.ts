import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { auth, health, reportstore } from "@cva/contracts";
import {
  connectNats, createDispatcher, createLogger, createUploadStore, exitOnSignals, metricsRegistry, natsAuthFromEnv, serviceSecretFromEnv, startMetricsServer, withCredential,
} from "@cva/platform";
import { buildEdge } from "./app.ts";
import { loadEdgeConfig } from "./config.ts";
import { startGrpcServer } from "./grpc/server.ts";
import { createReadiness } from "./routes/ops.ts";
import { knownSpecId } from "./validation/spec-ids.ts";

// Reads config, builds the clients and the dispatcher, starts the HTTP/1.1 JSON listener and the h2c gRPC listener.
async function main(): Promise<void> {
  const config = loadEdgeConfig();
  const logger = createLogger("edge");
  // Auth and report-store refuse calls without the service credential; every call from here carries it.
  const credential = withCredential(serviceSecretFromEnv());
  const authTransport = createGrpcTransport({ baseUrl: config.authUrl, interceptors: [credential] });
  const storeTransport = createGrpcTransport({ baseUrl: config.reportStoreUrl, interceptors: [credential] });
  const nc = await connectNats(config.natsUrl, "edge", { auth: natsAuthFromEnv() });
  const dispatcher = await createDispatcher(nc, { logger, defaultLocation: config.serverLocation });

  const healthy = (transport: ReturnType<typeof createGrpcTransport>) => async () => {
    const res = await createClient(health.Health, transport).check({ service: "" }, { timeoutMs: 1_000 });
    return res.status === health.HealthCheckResponse_ServingStatus.SERVING;
  };
  const readiness = createReadiness(dispatcher, { auth: healthy(authTransport), report_store: healthy(storeTransport) });

  const { app, ctx } = await buildEdge({
    auth: createClient(auth.AuthService, authTransport),
    reports: createClient(reportstore.ReportStoreService, storeTransport),
    dispatcher,
    // Raw files (scanVideo/Image/Audio) are streamed into the uploads bucket; the jobs name them.
    uploads: await createUploadStore(nc),
    config,
    logger,
    readiness,
    isKnownSpecId: knownSpecId,
    metricsRegistry,
  });
  await app.listen({ port: config.port, host: config.host });
  const grpc = await startGrpcServer({
    port: config.grpcPort,
    host: config.host,
    useCases: ctx.useCases,
    limits: ctx.deps.config.limits,
    uploads: ctx.deps.uploads,
    isKnownSpecId: knownSpecId,
    logger,
    ready: async () => (await readiness()).ready,
  });
  const metrics = await startMetricsServer(config.metricsPort, config.bindHost);
  logger.info({ http_port: config.port, grpc_port: grpc.port, metrics_port: metrics.port, public_base_url: config.publicBaseUrl }, "edge listening");

  exitOnSignals(logger, "edge", async () => {
    // Stop taking requests, let in-flight scans finish (Fastify waits for them), then drop NATS.
    await Promise.allSettled([app.close(), grpc.close(), metrics.close()]);
    await dispatcher.close().catch(() => undefined);
    await nc.drain().catch(() => undefined);
  });
}

main().catch((err: unknown) => {
  console.error(JSON.stringify({ level: 60, service: "edge", msg: "edge failed to start", err: String(err) }));
  process.exit(1);
});
