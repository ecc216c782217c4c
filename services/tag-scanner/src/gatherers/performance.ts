import type { CDPSession } from "puppeteer-core";
import { bounded } from "../util.ts";
import type { Gatherer } from "./gatherer.ts";

export interface PerformanceArtifact {
  /**
   * CPU time of the creative's renderer main thread since navigation, ms (Performance.getMetrics ThreadTime, less its
   * value just before the creative was loaded).
   */
  cpuMs: number;
  /** Largest JS heap in use seen, bytes. */
  heapBytes: number;
  /**
   * The renderer main thread's time kept from the CPU, sampled: at local ms `at`, how much longer its tasks had run
   * than their CPU time since the render began (TaskDuration − ThreadTime, ms). A task that is runnable but not
   * running — its thread descheduled on a machine short of CPU — grows the first and not the second, so this is the
   * starvation a loaded machine inflicted on the creative's timers, frames and paints (measurement.ts).
   */
  starvation: Array<{ at: number; ms: number }>;
  /**
   * The renderer main thread's CPU clock against the renderer's own monotonic clock, from the render's start: at
   * renderer ms `t` (Performance.getMetrics Timestamp), `cpu` ms of ThreadTime and `busy` ms of TaskDuration since
   * the render began. Both read in the same getMetrics call, on the renderer, so a sample taken late (a busy main
   * thread answers late) is still a true pair. fields/cpu-load.ts makes the 1 s windows of `cpu` from it.
   */
  cpuSeries: CpuSample[];
  /**
   * Each getMetrics sample of the render as the renderer answered it: `sent` (local epoch ms, just before the request
   * went out), `t` (renderer ms, Timestamp: when its main thread handled it) and `busy` (TaskDuration ms since the
   * render began). measurement.ts (idleLateness) tells from them when the request waited with no task of the
   * renderer's to wait behind — the browser or the renderer kept from running, which TaskDuration − ThreadTime misses.
   */
  answers: MetricsAnswer[];
}

export interface MetricsAnswer { sent: number; t: number; busy: number }

export interface CpuSample { t: number; cpu: number; busy: number }

/** About 2 min of render at 2 samples a second (the render is bounded at 30 s by default): a bound, never reached. */
const MAX_CPU_SAMPLES = 240;

/**
 * CPU and memory from Performance.getMetrics, sampled while the creative renders (so a page that later hangs still
 * has values) and once more before measuring; counted from the renderer's CPU time when the render begins.
 *
 * cpu_usage is ThreadTime — the renderer main thread's CPU time (CLOCK_THREAD_CPUTIME_ID) — not TaskDuration, which
 * sums its tasks' wall time: on a machine busy with other scans a task is preempted and its wall time grows (measured:
 * a 1 s busy loop under 4 competing processes on 2 cores, TaskDuration 1.00 s either way, ThreadTime what the thread
 * really ran), so only CPU time stays comparable between a quiet and a loaded worker, and it is what Chrome's heavy-ad
 * intervention counts. The value just before navigation (the prepared page's own set-up) is subtracted.
 */
export function gatherPerformance(client: CDPSession) {
  const artifact: PerformanceArtifact = { cpuMs: 0, heapBytes: 0, starvation: [], cpuSeries: [], answers: [] };
  let last = 0;
  let base: number | undefined;
  let baseStarved: number | undefined;
  let begun = 0;
  let baseTask: number | undefined;
  /** One (time, CPU) pair from the same getMetrics answer, counted from the render's start. */
  const record = (get: (n: string) => number | undefined) => {
    const ts = get("Timestamp"), thread = get("ThreadTime"), task = get("TaskDuration");
    if (ts === undefined || thread === undefined || task === undefined || base === undefined || baseTask === undefined) return;
    if (artifact.cpuSeries.length >= MAX_CPU_SAMPLES) return;
    artifact.cpuSeries.push({ t: ts * 1000, cpu: (thread - base) * 1000, busy: (task - baseTask) * 1000 });
  };
  const metrics = async () => {
    const m = await bounded(client.send("Performance.getMetrics"), 2_000, undefined);
    return m ? (n: string) => m.metrics.find((x) => x.name === n)?.value : undefined;
  };
  async function sample(): Promise<void> {
    const sent = Date.now();
    const get = await metrics();
    if (!get) return;
    const ts = get("Timestamp"), task = get("TaskDuration");
    if (ts !== undefined && task !== undefined && baseTask !== undefined && artifact.answers.length < MAX_CPU_SAMPLES) {
      artifact.answers.push({ sent, t: ts * 1000, busy: (task - baseTask) * 1000 });
    }
    const thread = get("ThreadTime");
    if (thread !== undefined) artifact.cpuMs = Math.max(artifact.cpuMs, Math.round((thread - (base ?? 0)) * 1000));
    if (thread !== undefined && task !== undefined && baseStarved !== undefined && artifact.starvation.length < 200) {
      artifact.starvation.push({ at: Date.now(), ms: Math.max(0, Math.round((task - thread - baseStarved) * 1000)) });
    }
    artifact.heapBytes = Math.max(artifact.heapBytes, Math.round(get("JSHeapUsedSize") ?? 0));
    record(get);
  }
  /** The renderer's CPU time before the creative: what cpu_usage is counted from. */
  async function mark(): Promise<void> {
    const sent = Date.now();
    const get = await metrics();
    base = get?.("ThreadTime");
    const task = get?.("TaskDuration");
    if (base !== undefined && task !== undefined) baseStarved = task - base;
    baseTask = task;
    const ts = get?.("Timestamp");
    if (ts !== undefined && task !== undefined) artifact.answers.push({ sent, t: ts * 1000, busy: 0 });
    begun = Date.now();
    if (get) record(get);
  }
  return {
    name: "performance",
    artifact,
    async start() {
      await client.send("Performance.enable", { timeDomain: "timeTicks" });
    },
    beginRender: mark,
    sample,
    /**
     * Samples every 500 ms (called from the render loop) — cpu.peak_percent's 1 s windows are then 1–1.5 s long —
     * and every 250 ms in the first 2 s, so that starvation before the first paint is told apart from starvation
     * after it.
     */
    tick(now: number): void {
      if (now - last < (now - begun < 2_000 ? 250 : 500)) return;
      last = now;
      void sample();
    },
    stop() {},
  } satisfies Gatherer<PerformanceArtifact> & Record<string, unknown>;
}
