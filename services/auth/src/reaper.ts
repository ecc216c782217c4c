import type { Logger } from "@cva/platform";
import type { AuthStore } from "./store.ts";
import { DEFAULT_RESERVATION_TTL_MS, counterKvKey, type SettleResult } from "./reservations.ts";

// Refunds reservations nobody committed before their expiry: the edge died mid-scan, its refund RPC failed, or the
// auth replica that reserved died before answering. Runs in every auth replica with no leader: each expired
// reservation is claimed by compare-and-swap on its record, so exactly one replica refunds it and the others only
// see it settled. The counters' holds are followed by a KV watch, so a sweep reads only counters with something
// expired instead of listing the bucket; every `resyncEvery` sweeps the holds are listed once anyway, so a watch
// that silently missed changes (a NATS node lost mid-delivery) cannot leave a reservation unrefunded for long.

export const DEFAULT_REAP_INTERVAL_MS = 5_000;
const DEFAULT_RESYNC_EVERY = 60;

export interface ReservationReaper {
  // One pass over every counter with an expired hold; what this replica refunded and settled.
  sweep(): Promise<SettleResult>;
  stop(): Promise<void>;
}

export async function startReservationReaper(
  store: AuthStore,
  opts: { intervalMs: number; logger?: Logger; now?: () => number; resyncEvery?: number },
): Promise<ReservationReaper> {
  const now = opts.now ?? Date.now;
  const log = opts.logger;
  // counter key → earliest expiry among its holds
  const due = new Map<string, number>();
  let stopped = false;
  let watch = await store.watchHolds(track);

  function track(counterKey: string, earliest: number | undefined) {
    if (earliest === undefined) due.delete(counterKey);
    else due.set(counterKey, earliest);
  }

  // The watch ends only when its connection closes; while we run, follow the counters again from their last values.
  const rewatch = async (): Promise<void> => {
    await watch.done.catch((err) => log?.warn({ err: String(err) }, "reservation watch failed"));
    if (stopped) return;
    log?.warn("reservation watch ended; following the counters again");
    for (;;) {
      try {
        watch = await store.watchHolds(track);
        break;
      } catch (err) {
        if (stopped) return;
        log?.warn({ err: String(err) }, "reservation watch could not restart; retrying");
        await new Promise((r) => setTimeout(r, opts.intervalMs).unref());
      }
    }
    void rewatch();
  };
  void rewatch();

  let running: Promise<SettleResult> | undefined;
  let sweeps = 0;
  async function resync(): Promise<void> {
    const earliest = new Map<string, number>();
    for (const h of await store.listHeld()) {
      const k = counterKvKey(h.customerId, h.month);
      earliest.set(k, Math.min(earliest.get(k) ?? Infinity, h.expiresUnixMs));
    }
    for (const [k, exp] of earliest) if (!due.has(k) || due.get(k)! > exp) due.set(k, exp);
  }
  async function sweepOnce(): Promise<SettleResult> {
    const total: SettleResult = { refunded: 0, settled: 0 };
    if (++sweeps % (opts.resyncEvery ?? DEFAULT_RESYNC_EVERY) === 0) {
      await resync().catch((err) => log?.warn({ err: String(err) }, "listing the held reservations failed; retrying next time"));
    }
    const t = now();
    for (const [key, earliest] of [...due]) {
      if (earliest > t) continue;
      try {
        const r = await store.reapCounter(key);
        total.refunded += r.refunded;
        total.settled += r.settled;
        // Until the watch reports the settled counter, look again only when its next hold expires.
        if (due.get(key) === earliest) {
          if (r.nextExpiry === undefined) due.delete(key);
          else due.set(key, r.nextExpiry);
        }
      } catch (err) {
        // Left in `due`: the next sweep tries again (the refund is durable work, not a one-shot).
        log?.warn({ err: String(err), counter: key }, "reaping a quota counter failed; retrying next sweep");
      }
    }
    if (total.refunded > 0) log?.info({ refunded: total.refunded, settled: total.settled }, "refunded reservations left uncommitted past their expiry");
    return total;
  }
  // Sweeps never overlap within a replica; a caller arriving during one shares its result.
  const sweep = () => (running ??= sweepOnce().finally(() => (running = undefined)));

  const timer = setInterval(() => void sweep(), opts.intervalMs);
  timer.unref();

  return {
    sweep,
    async stop() {
      stopped = true;
      clearInterval(timer);
      watch.stop();
      await running?.catch(() => {});
    },
  };
}

/** RESERVATION_REAP_INTERVAL_MS and RESERVATION_TTL_MS, validated (positive integers). */
export function reservationSettingsFromEnv(env: NodeJS.ProcessEnv = process.env, defaults = { ttlMs: DEFAULT_RESERVATION_TTL_MS, reapIntervalMs: DEFAULT_REAP_INTERVAL_MS }) {
  const read = (name: string, fallback: number) => {
    const v = env[name];
    if (v === undefined || v === "") return fallback;
    if (!/^\d+$/.test(v) || Number(v) === 0 || !Number.isSafeInteger(Number(v))) throw new Error(`${name} must be a positive integer (got ${JSON.stringify(v)})`);
    return Number(v);
  };
  return { ttlMs: read("RESERVATION_TTL_MS", defaults.ttlMs), reapIntervalMs: read("RESERVATION_REAP_INTERVAL_MS", defaults.reapIntervalMs) };
}
