/**
 * How long the scanner's own process was kept from running, over time: the lateness of a short timer on its event
 * loop. Every request a creative makes passes through this process twice — CDP request interception answers it
 * (interception.ts) and the egress proxy relays its bytes (@cva/platform outbound) — so while the loop waits for a
 * core, the creative's images, scripts and SVGs arrive late, and a timeline that starts when an asset arrives (an
 * SVG image's SMIL, a late logo) ends late: the machine's delay, not the creative's. The renderer's starvation
 * (performance.ts) does not see it: the renderer is idle, waiting for the bytes.
 *
 * Process-wide, one per scanner (scans in flight share the process, and each one's requests wait on the same loop).
 * Only late ticks are kept, in a bounded ring; a tick less than a tick late is ordinary work and is not counted.
 */
export interface LoopLag {
  /** ms the loop was late (beyond the jitter floor) between epoch ms `fromMs` and `toMs`. */
  heldBetween(fromMs: number, toMs: number): number;
  close(): void;
}

const TICK_MS = 20;
/**
 * A tick later than this counts in full; below it, the lateness is a busy moment's own work (up to one tick), not a
 * stall. At 5 ms, one scan at a time on a host at load 18-33 from other work summed 0.3-0.6 s over seconds-long
 * flights (a 1.5 s slow CDN, a video's request), each made of many small delays none of which held a request long;
 * an overloaded host stalls the loop for 100s of ms at a time (max 0.45-0.97 s measured).
 */
const JITTER_MS = 20;
/** Late ticks kept: at one every 20 ms, over 80 s of a loop late at every tick — longer than any scan's render. */
const MAX_SAMPLES = 4_096;

export function createLoopLag(now: () => number = Date.now): LoopLag {
  // [epoch ms when the late tick ran, ms late]; a ring once full.
  const at = new Float64Array(MAX_SAMPLES);
  const late = new Float64Array(MAX_SAMPLES);
  let n = 0;
  let last = performance.now();
  const timer = setInterval(() => {
    const t = performance.now();
    const lateMs = t - last - TICK_MS;
    last = t;
    if (lateMs < JITTER_MS) return;
    at[n % MAX_SAMPLES] = now();
    late[n % MAX_SAMPLES] = lateMs;
    n++;
  }, TICK_MS);
  // A measurement, not work: it must never keep the process alive.
  timer.unref();
  return {
    heldBetween(fromMs, toMs) {
      let sum = 0;
      for (let i = Math.max(0, n - MAX_SAMPLES); i < n; i++) {
        const t = at[i % MAX_SAMPLES]!;
        const l = late[i % MAX_SAMPLES]!;
        // A tick at t that ran l ms late covers (t − l, t]: count the part inside the span.
        const a = Math.max(fromMs, t - l);
        const b = Math.min(toMs, t);
        if (b > a) sum += b - a;
      }
      return Math.round(sum);
    },
    close() {
      clearInterval(timer);
    },
  };
}
