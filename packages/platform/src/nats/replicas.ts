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

// A KV manager whose buckets are created with the cluster's replica count (auth's and report-store's buckets).
class ReplicatedKvm extends Kvm {
  constructor(nc: NatsConnection, private readonly replicas: number) {
    super(nc);
  }
  override create(name: string, opts: Partial<KvOptions> = {}) {
    return super.create(name, { replicas: this.replicas, ...opts });
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
      await jsm.streams.add(config);
    } catch (err) {
      await jsm.streams.info(config.name).catch(() => {
        throw err;
      });
    }
    return;
  }
  if (have.config.num_replicas < config.num_replicas) {
    await jsm.streams.update(config.name, { ...have.config, num_replicas: config.num_replicas });
  }
}
