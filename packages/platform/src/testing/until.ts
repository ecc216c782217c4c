/**
 * Polls `probe` until `ok` accepts its value, every `pauseMs`, for at most `ms`; then fails naming `what` and the
 * last value seen. For tests that wait on evidence (a refund, a log line, a heartbeat) instead of a fixed sleep.
 */
export async function until<T>(what: string, probe: () => Promise<T>, ok: (v: T) => boolean, ms = 15_000, pauseMs = 50): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (ok(v)) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what} (last: ${JSON.stringify(v)})`);
    await new Promise((r) => setTimeout(r, pauseMs));
  }
}
