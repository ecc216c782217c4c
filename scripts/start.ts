// `npm start`: NATS (unless NATS_URL answers), every service and the edge as separate processes, a development
// API key, prefixed logs, clean shutdown on SIGINT/SIGTERM. Credentials come from the environment or .data/secrets.env
// (generated on first start); only the edge listens beyond loopback.
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import {
  ALL_LOCATIONS, authorizationBlock, envInt, envString, literalPasswords, natsAnswers, spawnNatsServer, connectNats, type NatsServerHandle,
} from "@cva/platform";
import { DEFAULT_PORTS, INHERITED_SECRETS_DROPPED, stackProcesses, type StackPorts } from "./lib/stack.ts";
import { supervise } from "./lib/supervisor.ts";
import { ensureDevKey } from "./lib/dev-key.ts";
import { loadOrCreateSecrets, natsAuthOf } from "./lib/secrets.ts";
import { buildAll } from "./lib/build.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const say = (l: string) => process.stdout.write(`[start] ${l}\n`);

// `npm start -- --production`: the services run as the image runs them — the esbuild bundles in dist/ with plain node,
// no TypeScript at run time. Built here first, so what runs always matches the sources.
const production = process.argv.includes("--production");
if (production) say(`production: built the bundles into dist/ in ${(await buildAll(root)).ms} ms; services run with plain node`);

const secretsFile = join(root, ".data", "secrets.env");
const { secrets, created } = loadOrCreateSecrets(secretsFile);
if (created.length) say(`generated ${created.length} credentials into .data/secrets.env (mode 0600)`);

const natsUrl = envString("NATS_URL", "nats://127.0.0.1:4222");
let nats: NatsServerHandle | undefined;
if (await natsAnswers(natsUrl)) {
  // Someone else's server: it must know these users (deploy/nats-users.conf) or run without authorization.
  say(`using NATS at ${natsUrl}`);
} else {
  const port = Number(new URL(natsUrl.split(",")[0]!.replace(/^nats:/, "http:")).port || 4222);
  say(`starting nats-server with JetStream and per-service users on 127.0.0.1:${port} (data in .data/nats)`);
  nats = await spawnNatsServer({ port, storeDir: join(root, ".data", "nats"), authorization: authorizationBlock(literalPasswords(secrets.nats)) });
}

const ports: StackPorts = {
  edge: envInt("PORT", DEFAULT_PORTS.edge),
  edgeGrpc: envInt("GRPC_PORT", DEFAULT_PORTS.edgeGrpc),
  auth: envInt("AUTH_PORT", DEFAULT_PORTS.auth),
  reportStore: envInt("REPORT_STORE_PORT", DEFAULT_PORTS.reportStore),
  tagScanner: envInt("TAG_SCANNER_PORT", DEFAULT_PORTS.tagScanner),
  zipAnalyzer: envInt("ZIP_ANALYZER_PORT", DEFAULT_PORTS.zipAnalyzer),
  vastAnalyzer: envInt("VAST_ANALYZER_PORT", DEFAULT_PORTS.vastAnalyzer),
  mediaProber: envInt("MEDIA_PROBER_PORT", DEFAULT_PORTS.mediaProber),
  metricsBase: envInt("METRICS_PORT_BASE", DEFAULT_PORTS.metricsBase),
};
const baseUrl = envString("PUBLIC_BASE_URL", `http://localhost:${ports.edge}`);
// Every worker serves every location unless SERVER_LOCATION says otherwise, so targeting.country works out of the box.
const serverLocation = envString("SERVER_LOCATION", ALL_LOCATIONS);
const stack = supervise(stackProcesses(root, ports, natsUrl, secrets, { built: production }), { env: { PUBLIC_BASE_URL: baseUrl, SERVER_LOCATION: serverLocation }, dropEnv: INHERITED_SECRETS_DROPPED });

const nc = await connectNats(natsUrl, "start", { auth: natsAuthOf(secrets, "admin") });
const devKey = await ensureDevKey(nc, join(root, ".data", "dev-api-key"));
await nc.close();

let shuttingDown = false;
async function shutdown(signal: string) {
  if (shuttingDown) return;
  shuttingDown = true;
  say(`${signal}: stopping`);
  await stack.stop();
  await nats?.stop();
  say("stopped");
  process.exit(0);
}
process.on("SIGINT", () => void shutdown("SIGINT"));
process.on("SIGTERM", () => void shutdown("SIGTERM"));

// Announce once the edge answers, so the URL printed is usable.
for (let i = 0; i < 600 && !shuttingDown; i++) {
  const up = await fetch(`http://127.0.0.1:${ports.edge}/healthz`).then((r) => r.ok, () => false);
  if (up) break;
  await new Promise((r) => setTimeout(r, 250));
}
say(`API:          ${baseUrl}   (docs: ${baseUrl}/docs, gRPC: 127.0.0.1:${ports.edgeGrpc})`);
say(`internal:     gRPC ${ports.auth}-${ports.mediaProber}, metrics ${ports.metricsBase}-${ports.metricsBase + 6} and NATS on ${envString("BIND_HOST", "127.0.0.1")}; credentials in .data/secrets.env`);
say(`locations:    ${serverLocation} (targeting.country; scans without it run in ${serverLocation.split(",")[0]})`);
say(`dev API key:  ${devKey}`);
say(`try:          curl -s -H 'X-ApiKey: ${devKey}' -H 'content-type: application/json' -d '{"data":"'$(printf '<div style="width:300px;height:250px;background:#c00">ad</div>' | base64 -w0)'"}' ${baseUrl}/v3/scanTag`);
