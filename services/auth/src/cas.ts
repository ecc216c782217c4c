import { setTimeout as sleep } from "node:timers/promises";

// JetStream answers a create/update whose expected revision is stale with API error 10071 ("wrong last sequence");
// kv.create on an existing key reports the same condition. Those are the only errors a CAS loop may retry.
export function isRevisionConflict(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown; api_error?: { err_code?: unknown } } | null;
  if (!e) return false;
  if (e.code === 10071 || e.api_error?.err_code === 10071) return true;
  return typeof e.message === "string" && /wrong last sequence|key exists/i.test(e.message);
}

export class CasGaveUpError extends Error {
  constructor(what: string) {
    super(`too much contention updating ${what}`);
  }
}

// Runs `attempt` until it stops conflicting. A short, growing, jittered pause between attempts keeps a burst of
// concurrent writers from retrying in lock-step.
export async function casLoop<T>(what: string, attempt: () => Promise<T>, maxAttempts = 200): Promise<T> {
  for (let i = 0; ; i++) {
    try {
      return await attempt();
    } catch (err) {
      if (!isRevisionConflict(err) || i + 1 >= maxAttempts) {
        if (isRevisionConflict(err)) throw new CasGaveUpError(what);
        throw err;
      }
      await sleep(Math.random() * Math.min(50, 1 + i * 2));
    }
  }
}
