import { connect, type NatsConnection } from "@nats-io/transport-node";

export type { NatsConnection };

// NATS_URL may list several servers (a cluster), comma-separated.
export async function connectNats(url: string, name: string, opts: { timeoutMs?: number } = {}): Promise<NatsConnection> {
  return connect({
    servers: url.split(",").map((s) => s.trim()).filter(Boolean),
    name,
    timeout: opts.timeoutMs ?? 5000,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
  });
}

// True when something speaking NATS answers at url within the time-out.
export async function natsAnswers(url: string, timeoutMs = 1500): Promise<boolean> {
  try {
    const nc = await connect({ servers: url.split(","), timeout: timeoutMs, maxReconnectAttempts: 0, reconnect: false });
    await nc.close();
    return true;
  } catch {
    return false;
  }
}
