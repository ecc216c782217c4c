// Starts the real product for end-to-end tests: its own nats-server with the per-service users and permissions, and
// the same processes `npm start` runs, on free ports, with fresh credentials, with the outbound allowlist opened to
// loopback for local fixture servers. Tests pick the processes they need (`only`) so e.g. the "no worker" case runs
// without any scanner; `extra` processes run as the NATS user they name (default: a tag worker's).
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { createAuthStore } from "@cva/auth";
import { ALL_LOCATIONS, connectNats, newSecret, type NatsConnection, type NatsPasswords, type NatsUser } from "@cva/platform";
import { corpusDir, freePort, startNatsServer, until } from "@cva/platform/testing/index.ts";
import { processSecretsEnv, type StackSecrets } from "../../scripts/lib/secrets.ts";
import { INHERITED_SECRETS_DROPPED, stackProcesses, type ProcessSpec, type StackPorts } from "../../scripts/lib/stack.ts";
import { supervise } from "../../scripts/lib/supervisor.ts";
import { freshBundles } from "./bundles.ts";

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

export interface TestStack {
  baseUrl: string;
  // Whether its processes run the production bundles (dist/, plain node) rather than the sources through tsx.
  built: boolean;
  grpcUrl: string;
  natsUrl: string;
  // This stack's credentials (the service and admin secrets, every NATS user's password), for hostile tests.
  secrets: StackSecrets;
  // Connected as the NATS user `admin` (the API-key buckets).
  nc: NatsConnection;
  ports: StackPorts;
  logs: string[];
  // nats-server's own log: permission violations show up here as "Publish Violation" / "Subscription Violation".
  natsLog: string[];
  createKey(customer: string, quota?: number): Promise<string>;
  revokeKey(key: string): Promise<void>;
  // Kill one process abruptly (SIGKILL), e.g. to prove redelivery.
  kill(name: string): void;
  // Process ids of the running processes by name (nats-server as "nats"), e.g. to see what they listen on.
  pids(): Map<string, number>;
  stop(): Promise<void>;
}

export type ProcessName = "auth" | "report-store" | "tag-scanner" | "zip-analyzer" | "vast-analyzer" | "media-prober" | "edge";

type ExtraProcess = Omit<ProcessSpec, "env"> & { env?: Record<string, string>; natsUser?: NatsUser };

/** A free port for every process of the stack (metrics ports off). */
export async function freeStackPorts(): Promise<StackPorts> {
  return {
    edge: await freePort(),
    edgeGrpc: await freePort(),
    auth: await freePort(),
    reportStore: await freePort(),
    tagScanner: await freePort(),
    zipAnalyzer: await freePort(),
    vastAnalyzer: await freePort(),
    mediaProber: await freePort(),
    metricsBase: 0,
  };
}

// `built`: the production bundles (dist/, `npm run build`) instead of the sources, as the image runs them. Unset: the
// bundles when they are fresh (always in `npm test`, which builds them first; bundles.ts), else the sources.
export async function startStack(opts: { only?: ProcessName[]; env?: Record<string, string>; waitForWorkers?: string[]; extra?: ExtraProcess[]; built?: boolean } = {}): Promise<TestStack> {
  const iabSchemas = corpusDir("vast/iab-vast-schemas");
  const built = opts.built ?? freshBundles(repoRoot);
  const nats = await startNatsServer({ users: true });
  const secrets: StackSecrets = { service: newSecret(), admin: newSecret(), nats: nats.passwords as NatsPasswords };
  const ports = await freeStackPorts();
  const baseUrl = `http://127.0.0.1:${ports.edge}`;
  const specs = [
    ...stackProcesses(repoRoot, ports, nats.url, secrets, { built }).filter((s) => !opts.only || opts.only.includes(s.name as ProcessName)),
    ...(opts.extra ?? []).map(({ natsUser, ...e }) => ({ ...e, env: { NATS_URL: nats.url, ...processSecretsEnv(secrets, natsUser ?? "tag-scanner"), ...e.env } })),
  ];
  const logs: string[] = [];
  const stack = supervise(specs, {
    restart: false,
    dropEnv: INHERITED_SECRETS_DROPPED,
    out: (l) => {
      logs.push(l);
      if (process.env.CVA_TEST_LOGS) process.stdout.write(l + "\n");
    },
    env: {
      OUTBOUND_ALLOWLIST: "127.0.0.0/8,::1/128",
      PUBLIC_BASE_URL: baseUrl,
      LOG_LEVEL: "info",
      WORKER_HEARTBEAT_MS: "300",
      // As `npm start` runs it: every worker serves every location.
      SERVER_LOCATION: ALL_LOCATIONS,
      // The IAB XSDs from the shared corpus, when it is there (the product does not ship them; CI requires them).
      ...(iabSchemas ? { VAST_XSD_DIR: iabSchemas } : {}),
      // No DNS here: tracker hosts named in fixtures would wait out their connect time-outs. The network part of the
      // tracker checks is tested against fixture servers in services/vast-analyzer/test/trackers.test.ts.
      VAST_CHECK_TRACKERS: "0",
      ...opts.env,
    },
  });
  const nc = await connectNats(nats.url, "test-harness", { auth: nats.authFor("admin") });
  const store = await createAuthStore(nc);

  const stop = async () => {
    await stack.stop();
    await nc.close().catch(() => {});
    await nats.stop();
  };
  try {
    await waitFor(async () => (await fetch(`${baseUrl}/healthz`).catch(() => undefined))?.ok === true, 120_000, "edge /healthz", logs);
    if (opts.waitForWorkers?.length) {
      let lastReady = "";
      await waitFor(
        async () => {
          const r = await fetch(`${baseUrl}/readyz`).catch(() => undefined);
          lastReady = r ? await r.text() : "(no answer)";
          return opts.waitForWorkers!.every((k) => new RegExp(`"${k}"\\s*:\\s*(true|\\d*[1-9])`).test(lastReady)) || r?.status === 200;
        },
        90_000,
        () => `workers ${opts.waitForWorkers!.join(", ")} (last /readyz: ${lastReady})`,
        logs,
      );
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    baseUrl,
    built,
    grpcUrl: `http://127.0.0.1:${ports.edgeGrpc}`,
    natsUrl: nats.url,
    secrets,
    nc,
    ports,
    logs,
    natsLog: nats.log,
    createKey: async (customer, quota) => (await store.createKey(customer, quota)).apiKey,
    revokeKey: async (key) => void (await store.revokeKey(key)),
    kill: (name) => stack.children().get(name)?.kill("SIGKILL"),
    pids: () => new Map([["nats", nats.pid], ...[...stack.children()].map(([n, c]) => [n, c.pid!] as [string, number])]),
    stop,
  };
}

/** until() with the stack's last log lines in its error: a process that never came up usually said why. */
async function waitFor(cond: () => Promise<boolean>, ms: number, what: string | (() => string), logs: string[]): Promise<void> {
  try {
    await until(typeof what === "string" ? what : "the stack", cond, Boolean, ms, 200);
  } catch (err) {
    throw new Error(`timed out waiting for ${typeof what === "string" ? what : what()}; last logs:\n${logs.slice(-30).join("\n")}`, { cause: err });
  }
}

export async function postJson(url: string, body: unknown, key?: string): Promise<{ status: number; headers: Headers; json: any; text: string }> {
  const r = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...(key ? { "x-apikey": key } : {}) },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await r.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: r.status, headers: r.headers, json, text };
}

export const b64 = (s: string | Buffer) => Buffer.from(s).toString("base64");
