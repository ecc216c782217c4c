import { join } from "node:path";
import { connect } from "@nats-io/transport-node";
import { inboxPrefixOf, splitUrlCredentials, type NatsAuth } from "./auth.ts";
import { spawnNatsServer, type NatsServerHandle, type SpawnNatsOptions } from "./server.ts";

export interface NatsClusterHandle {
  /** Every node's client URL, comma-separated: NATS_URL for the services. */
  url: string;
  urls: string[];
  node(i: number): NatsServerHandle | undefined;
  /** SIGKILL one node (its data stays on disk, as after a crash). */
  kill(i: number): void;
  /** Starts a killed or stopped node again on the same ports and data; resolves once it is back in the cluster. */
  restart(i: number): Promise<void>;
  stop(): Promise<void>;
}

export interface SpawnNatsClusterOptions extends Pick<SpawnNatsOptions, "authorization" | "env" | "host"> {
  clientPorts: number[];
  routePorts: number[];
  /** Node i keeps its JetStream data in <storeDir>/node-<i>. */
  storeDir: string;
  /** A user allowed $JS.API.INFO, to see that JetStream is up (the cluster's meta group elected its leader). */
  probeAuth?: NatsAuth;
  log?: (node: number, line: string) => void;
  /** Bound on forming the cluster; a busy machine needs several seconds for the meta leader election. */
  readyTimeoutMs?: number;
}

// A JetStream cluster of nats-server processes on loopback (npm run chaos, tests): every node routes to every other.
// Resolves once each node sees all the others and JetStream answers, so that streams created next get their replicas.
export async function spawnNatsCluster(opts: SpawnNatsClusterOptions): Promise<NatsClusterHandle> {
  const n = opts.clientPorts.length;
  const host = opts.host ?? "127.0.0.1";
  const routes = opts.routePorts.map((p) => `nats-route://${host}:${p}`);
  const spec = (i: number): SpawnNatsOptions => ({
    port: opts.clientPorts[i]!,
    host,
    storeDir: join(opts.storeDir, `node-${i}`),
    authorization: opts.authorization,
    env: opts.env,
    cluster: { name: "cva", serverName: `nats-${i + 1}`, routePort: opts.routePorts[i]!, routes },
    log: opts.log && ((l) => opts.log!(i, l)),
  });
  const nodes: Array<NatsServerHandle | undefined> = await Promise.all(opts.clientPorts.map((_, i) => spawnNatsServer(spec(i))));
  const urls = nodes.map((h) => h!.url);
  const handle: NatsClusterHandle = {
    url: urls.join(","),
    urls,
    node: (i) => nodes[i],
    kill(i) {
      nodes[i]?.process.kill("SIGKILL");
    },
    async restart(i) {
      const old = nodes[i];
      if (old && old.process.exitCode === null && old.process.signalCode === null) {
        await new Promise((r) => old.process.once("exit", r));
      }
      nodes[i] = await spawnNatsServer(spec(i));
      await waitForClusterReady([urls[i]!], n, opts.probeAuth, opts.readyTimeoutMs ?? 60_000);
    },
    async stop() {
      await Promise.all(nodes.map((h) => h?.stop()));
    },
  };
  try {
    await waitForClusterReady(urls, n, opts.probeAuth, opts.readyTimeoutMs ?? 60_000);
  } catch (err) {
    await handle.stop();
    throw err;
  }
  return handle;
}

/** Resolves when a client of every node sees `size` nodes and the JetStream API answers there. */
export async function waitForClusterReady(urls: string[], size: number, auth: NatsAuth | undefined, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (const url of urls) {
    for (;;) {
      if (await nodeReady(url, size, auth)) break;
      if (Date.now() > end) throw new Error(`the NATS cluster did not form within ${timeoutMs} ms (${url} does not see ${size} JetStream nodes)`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

async function nodeReady(url: string, size: number, auth: NatsAuth | undefined): Promise<boolean> {
  const nc = await connect({ servers: splitUrlCredentials(url).servers, ...(auth ? { user: auth.user, pass: auth.password, inboxPrefix: inboxPrefixOf(auth.user) } : {}), reconnect: false, timeout: 1000 }).catch(() => undefined);
  if (!nc) return false;
  try {
    if ((nc.info?.connect_urls?.length ?? 0) < size) return false;
    const r = await nc.request("$JS.API.INFO", undefined, { timeout: 1500 });
    const body = JSON.parse(new TextDecoder().decode(r.data)) as { error?: unknown };
    return body.error === undefined;
  } catch {
    return false;
  } finally {
    await nc.close().catch(() => {});
  }
}
