import { reportstore } from "@cva/contracts";
import { bindHostFromEnv, connectNats, createLogger, envInt, exitOnSignals, loadCommonConfig, serviceCredentialsFromEnv, startServiceHost } from "@cva/platform";
import { openArtifacts } from "./artifacts.ts";
import { DAY_MS } from "./retention.ts";
import { registerReportStoreRoutes } from "./routes.ts";
import { DEFAULT_RETENTION_DAYS, createReportStore } from "./store.ts";
import { createWorkspaceSettingsStore } from "./workspace-settings.ts";

// Report-store process: stored reports and their index in NATS KV, images in the Object Store, each workspace's
// settings in their own KV bucket (no retention), on REPORT_STORE_PORT.
const logger = createLogger("report-store");
const { natsUrl, natsAuth } = loadCommonConfig();
const port = envInt("REPORT_STORE_PORT", 9102);
const metricsPort = envInt("METRICS_PORT", 9202);
// 0 keeps reports and images forever.
const retentionMs = envInt("REPORT_RETENTION_DAYS", DEFAULT_RETENTION_DAYS) * DAY_MS;

const credentials = serviceCredentialsFromEnv();

const nc = await connectNats(natsUrl, "report-store", { auth: natsAuth });
const store = await createReportStore(nc, { retentionMs });
const artifacts = await openArtifacts(nc, retentionMs);
const workspaces = await createWorkspaceSettingsStore(nc);
const host = await startServiceHost({
  name: "report-store",
  port,
  metricsPort,
  host: bindHostFromEnv(),
  credentials,
  logger,
  serviceNames: [reportstore.ReportStoreService.typeName],
  register: (router) => registerReportStoreRoutes(router, store, artifacts, logger, workspaces),
  ready: async () => !nc.isClosed(),
});

exitOnSignals(logger, "report-store", async () => {
  await host.close();
  await nc.drain();
});
