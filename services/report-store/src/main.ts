import { reportstore } from "@cva/contracts";
import { connectNats, createLogger, envInt, exitOnSignals, loadCommonConfig, startServiceHost } from "@cva/platform";
import { openArtifacts } from "./artifacts.ts";
import { DAY_MS } from "./retention.ts";
import { registerReportStoreRoutes } from "./routes.ts";
import { DEFAULT_RETENTION_DAYS, createReportStore } from "./store.ts";

// Report-store process: stored reports and their index in NATS KV, images in the Object Store, on REPORT_STORE_PORT.
const logger = createLogger("report-store");
const { natsUrl } = loadCommonConfig();
const port = envInt("REPORT_STORE_PORT", 9102);
const metricsPort = envInt("METRICS_PORT", 9202);
// 0 keeps reports and images forever.
const retentionMs = envInt("REPORT_RETENTION_DAYS", DEFAULT_RETENTION_DAYS) * DAY_MS;

const nc = await connectNats(natsUrl, "report-store");
const store = await createReportStore(nc, { retentionMs });
const artifacts = await openArtifacts(nc, retentionMs);
const host = await startServiceHost({
  name: "report-store",
  port,
  metricsPort,
  logger,
  serviceNames: [reportstore.ReportStoreService.typeName],
  register: (router) => registerReportStoreRoutes(router, store, artifacts, logger),
  ready: async () => !nc.isClosed(),
});

exitOnSignals(logger, "report-store", async () => {
  await host.close();
  await nc.drain();
});
