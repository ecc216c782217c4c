// The processes that make up the product, shared by `npm start` and the end-to-end test harness so both run
// exactly the same thing. Each entry is a separate OS process (ARCHITECTURE §2).
import { join } from "node:path";
import { ADMIN_SECRET_ENV, NATS_USERS, SERVICE_SECRET_ENV, digestVar, natsPasswordVar, type NatsUser } from "@cva/platform";
import { processSecretsEnv, type StackSecrets } from "./secrets.ts";
import { builtEntry, isServiceName } from "./services.ts";

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

// Credentials a process must not inherit from the shell that started the stack: each gets exactly its own
// (secrets.ts processSecretsEnv), so an exported CVA_SERVICE_SECRET never reaches a scanner.
export const INHERITED_SECRETS_DROPPED = [
  ...[SERVICE_SECRET_ENV, ADMIN_SECRET_ENV, digestVar(SERVICE_SECRET_ENV), digestVar(ADMIN_SECRET_ENV), "NATS_PASSWORD"].flatMap((v) => [v, `${v}_FILE`]),
  "NATS_USER",
  ...NATS_USERS.map(natsPasswordVar),
];

// Each process runs as the NATS user of the same name, listens on loopback (BIND_HOST's default) and holds only its
// own credentials. `built`: run the production bundles (dist/<name>/main.js, `npm run build`) instead of the sources.
export function stackProcesses(root: string, ports: StackPorts, natsUrl: string, secrets: StackSecrets, opts: { built?: boolean } = {}): ProcessSpec[] {
  const specs = sourceProcesses(root, ports, natsUrl, secrets);
  return opts.built ? specs.map((s) => ({ ...s, entry: isServiceName(s.name) ? builtEntry(root, s.name) : s.entry })) : specs;
}

function sourceProcesses(root: string, ports: StackPorts, natsUrl: string, secrets: StackSecrets): ProcessSpec[] {
  const m = (i: number) => String(ports.metricsBase === 0 ? 0 : ports.metricsBase + i);
  const common = (user: NatsUser) => ({ NATS_URL: natsUrl, ...processSecretsEnv(secrets, user) });
  return [
    { name: "auth", entry: join(root, "services/auth/src/main.ts"), env: { ...common("auth"), AUTH_PORT: String(ports.auth), METRICS_PORT: m(1) } },
    { name: "report-store", entry: join(root, "services/report-store/src/main.ts"), env: { ...common("report-store"), REPORT_STORE_PORT: String(ports.reportStore), METRICS_PORT: m(2) } },
    { name: "tag-scanner", entry: join(root, "services/tag-scanner/src/main.ts"), env: { ...common("tag-scanner"), TAG_SCANNER_PORT: String(ports.tagScanner), METRICS_PORT: m(3) } },
    { name: "zip-analyzer", entry: join(root, "services/zip-analyzer/src/main.ts"), env: { ...common("zip-analyzer"), ZIP_ANALYZER_PORT: String(ports.zipAnalyzer), METRICS_PORT: m(4) } },
    { name: "vast-analyzer", entry: join(root, "services/vast-analyzer/src/main.ts"), env: { ...common("vast-analyzer"), VAST_ANALYZER_PORT: String(ports.vastAnalyzer), METRICS_PORT: m(5) } },
    { name: "media-prober", entry: join(root, "services/media-prober/src/main.ts"), env: { ...common("media-prober"), MEDIA_PROBER_PORT: String(ports.mediaProber), METRICS_PORT: m(6) } },
    {
      name: "edge",
      entry: join(root, "edge/src/main.ts"),
      env: {
        ...common("edge"),
        METRICS_PORT: m(0),
        PORT: String(ports.edge),
        GRPC_PORT: String(ports.edgeGrpc),
        AUTH_URL: `http://127.0.0.1:${ports.auth}`,
        REPORT_STORE_URL: `http://127.0.0.1:${ports.reportStore}`,
      },
    },
  ];
}
