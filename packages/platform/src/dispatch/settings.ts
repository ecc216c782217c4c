import { envInt } from "../config.ts";

// How jobs are queued and redelivered. Tests shorten ack_wait to see redelivery after a killed worker quickly.
export interface DispatchSettings {
  // A job not acked (nor marked in progress) within this time goes to another worker.
  ackWaitMs: number;
  // Deliveries before a job is given up (a job that kills every worker must not loop forever).
  maxDeliver: number;
  // Queued-but-undelivered jobs allowed per live worker slot before requesters answer "no worker resources".
  queuePerSlot: number;
  // A heartbeat older than this means the worker is gone.
  heartbeatTtlMs: number;
  heartbeatEveryMs: number;
}

export function dispatchSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): DispatchSettings {
  return {
    ackWaitMs: envInt("SCAN_ACK_WAIT_MS", 15_000, env),
    maxDeliver: envInt("SCAN_MAX_DELIVER", 3, env),
    queuePerSlot: envInt("SCAN_QUEUE_PER_SLOT", 2, env),
    heartbeatTtlMs: envInt("WORKER_HEARTBEAT_TTL_MS", 3000, env),
    heartbeatEveryMs: envInt("WORKER_HEARTBEAT_MS", 1000, env),
  };
}
