// Small helpers shared by gatherers. Every call into a page can hang (a creative running `while(true){}` blocks its
// renderer's main thread), so every such call is raced against a time bound and yields a fallback instead.

export const TIMED_OUT = Symbol("timed out");

// Node fires a timer of more than 2^31-1 ms, Infinity or NaN after 1 ms (TimeoutOverflowWarning): a job without a
// deadline (Infinity ms left) would time out at once. Such a bound means "no bound", so it waits the longest a timer can.
const MAX_TIMER_MS = 2 ** 31 - 1;
export const timerMs = (ms: number) => (Number.isFinite(ms) ? Math.min(MAX_TIMER_MS, Math.max(0, ms)) : ms < 0 ? 0 : MAX_TIMER_MS);

export async function within<T>(p: Promise<T>, ms: number): Promise<T | typeof TIMED_OUT> {
  let timer: NodeJS.Timeout | undefined;
  const guard = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMED_OUT), timerMs(ms));
  });
  try {
    return await Promise.race([p, guard]);
  } finally {
    clearTimeout(timer);
  }
}

/** Resolves to `fallback` when `p` rejects or does not settle within `ms`. */
export async function bounded<T>(p: Promise<T>, ms: number, fallback: T): Promise<T> {
  p.catch(() => {}); // a late rejection after the time-out must not become an unhandled rejection
  try {
    const r = await within(p, ms);
    return r === TIMED_OUT ? fallback : r;
  } catch {
    return fallback;
  }
}

export const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    const t = setTimeout(done, timerMs(ms));
    function done() {
      clearTimeout(t);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });

export function truncate(s: string, max = 1000): string {
  return s.length > max ? `${s.slice(0, max)}…` : s;
}
