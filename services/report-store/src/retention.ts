import { jetstreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";

// Kvm.create / Objm.create set max_age only when they create the stream; an existing bucket keeps whatever it was
// made with (possibly by another process, e.g. a worker creating cva_artifacts first). Retention is an operator
// setting, so the owner of the data re-applies it at start-up. 0 means "keep forever".
export async function applyMaxAge(nc: NatsConnection, stream: string, retentionMs: number): Promise<void> {
  const jsm = await jetstreamManager(nc);
  const info = await jsm.streams.info(stream);
  const maxAge = retentionMs * 1_000_000; // nanoseconds
  if (info.config.max_age === maxAge) return;
  await jsm.streams.update(stream, { ...info.config, max_age: maxAge });
}

export const DAY_MS = 24 * 3600 * 1000;
