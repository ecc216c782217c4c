// The processes that make up the product, shared by `npm start` and the end-to-end test harness so both run
// exactly the same thing. Each entry is a separate OS process (ARCHITECTURE §2).
import { join } from "node:path";

export interface ProcessSpec {
  name: string;
  entry: string;
  env: Record<string, string>;
}

export interface StackPorts {
  edge: number;
  edgeGrpc: number;
  auth: number;
  reportStore: number;
  tagScanner: number;
  zipAnalyzer: number;
  vastAnalyzer: number;
  mediaProber: number;
  metricsBase: number;
}

export const DEFAULT_PORTS: StackPorts = {
  edge: 8080,
  edgeGrpc: 8081,
  auth: 9101,
  reportStore: 9102,
  tagScanner: 9103,
  zipAnalyzer: 9104,
  vastAnalyzer: 9105,
  mediaProber: 9106,
  metricsBase: 9200,
};

export function stackProcesses(root: string, ports: StackPorts, natsUrl: string): ProcessSpec[] {
  const m = (i: number) => String(ports.metricsBase === 0 ? 0 : ports.metricsBase + i);
  const common = { NATS_URL: natsUrl };
  return [
    { name: "auth", entry: join(root, "services/auth/src/main.ts"), env: { ...common, AUTH_PORT: String(ports.auth), METRICS_PORT: m(1) } },
    { name: "report-store", entry: join(root, "services/report-store/src/main.ts"), env: { ...common, REPORT_STORE_PORT: String(ports.reportStore), METRICS_PORT: m(2) } },
    { name: "tag-scanner", entry: join(root, "services/tag-scanner/src/main.ts"), env: { ...common, TAG_SCANNER_PORT: String(ports.tagScanner), METRICS_PORT: m(3) } },
    { name: "zip-analyzer", entry: join(root, "services/zip-analyzer/src/main.ts"), env: { ...common, ZIP_ANALYZER_PORT: String(ports.zipAnalyzer), METRICS_PORT: m(4) } },
    { name: "vast-analyzer", entry: join(root, "services/vast-analyzer/src/main.ts"), env: { ...common, VAST_ANALYZER_PORT: String(ports.vastAnalyzer), METRICS_PORT: m(5) } },
    { name: "media-prober", entry: join(root, "services/media-prober/src/main.ts"), env: { ...common, MEDIA_PROBER_PORT: String(ports.mediaProber), METRICS_PORT: m(6) } },
    {
      name: "edge",
      entry: join(root, "edge/src/main.ts"),
      env: {
        ...common,
        PORT: String(ports.edge),
        GRPC_PORT: String(ports.edgeGrpc),
        AUTH_URL: `http://127.0.0.1:${ports.auth}`,
        REPORT_STORE_URL: `http://127.0.0.1:${ports.reportStore}`,
      },
    },
  ];
}
