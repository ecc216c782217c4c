import { Kvm, type KvOptions } from "@nats-io/kv";
import type { JetStreamManager, StreamConfig } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { envInt } from "../config.ts";

// How many copies JetStream keeps of every stream and bucket of the product. Three on a cluster of three or more nodes
// (one node may die without losing a job, a result, a key or a report), one on a single server (it cannot do more).
//
// Decided from the server's INFO: `cluster` is set on a clustered server and `connect_urls` lists the client URL of
// every node currently routed to it, itself included (clients learn the other nodes from it, too). JetStream's own
// account info ($JS.API.INFO) says nothing about peers, and every node of our clusters runs JetStream (deploy/). The
// count is read when a stream is created, after the JetStream API answered (the meta group has a leader, so the
// routes are up). NATS_REPLICAS overrides it (1, 3 or 5), e.g. for a cluster that was still forming.
export function jetStreamReplicas(nc: NatsConnection, env: NodeJS.ProcessEnv = process.env): number {
  const forced = envInt("NATS_REPLICAS", 0, env);
  if (forced > 0) {
    if (![1, 3, 5].includes(forced)) throw new Error(`NATS_REPLICAS must be 1, 3 or 5 (got ${forced})`);
    return forced;
  }
  const info = nc.info;
  if (!info?.cluster) return 1;
  return (info.connect_urls?.length ?? 1) >= 3 ? 3 : 1;
}

/**
 * JetStream API errors that mean "the cluster is still forming", not "this request is wrong": the meta leader has not
 * yet heard from enough JetStream peers to place R3 (10005 "no suitable peers for placement"), or has no quorum for a
 * moment (10008 "JetStream system temporarily unavailable"). A node answers INFO and routes before its peers have
 * registered with the meta group, so a service started with its cluster (compose, `npm run chaos`, a rolling restart)
 * can see these for a few seconds; on a loaded 2-core machine the test cluster did.
 */
const FORMING_CODES = new Set([10005, 10008]);
export function isClusterForming(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  return typeof code === "number" && FORMING_CODES.has(code);
}

/** How long creating a stream or bucket waits for a forming cluster before giving up (and the service with it). */
export const PLACEMENT_WAIT_MS = 30_000;

/** Runs a stream or bucket creation, again while the cluster is still forming, for at most `waitMs`. */
export async function whileForming<T>(create: () => Promise<T>, waitMs = PLACEMENT_WAIT_MS): Promise<T> {
  const end = Date.now() + waitMs;
  for (let delay = 200; ; delay = Math.min(delay * 2, 2_000)) {
    try {
      return await create();
    } catch (err) {
      if (!isClusterForming(err) || Date.now() + delay > end) throw err;
      await new Promise((r) => setTimeout(r, delay));
    }
  }
}

// A KV manager whose buckets are created with the cluster's replica count (auth's and report-store's buckets).
class ReplicatedKvm extends Kvm {
  constructor(nc: NatsConnection, private readonly replicas: number) {
    super(nc);
  }
  override create(name: string, opts: Partial<KvOptions> = {}) {
    return whileForming(() => super.create(name, { replicas: this.replicas, ...opts }));
  }
}

export function replicatedKvm(nc: NatsConnection): Kvm {
  return new ReplicatedKvm(nc, jetStreamReplicas(nc));
}

/**
 * Creates `config` if missing; a stream that exists with fewer replicas than asked (made while the cluster had one
 * node) is scaled up, nothing else of it is changed. Lost creation races are fine.
 */
export async function ensureReplicatedStream(jsm: JetStreamManager, config: Partial<StreamConfig> & { name: string; num_replicas: number }): Promise<void> {
  const have = await jsm.streams.info(config.name).catch(() => undefined);
  if (!have) {
    try {
      await whileForming(() => jsm.streams.add(config));
    } catch (err) {
      await jsm.streams.info(config.name).catch(() => {
        throw err;
      });
    }
    return;
  }
  if (have.config.num_replicas < config.num_replicas) {
    await whileForming(() => jsm.streams.update(config.name, { ...have.config, num_replicas: config.num_replicas }));
  }
}
