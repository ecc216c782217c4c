import type { CDPSession } from "puppeteer-core";
import { bounded } from "../util.ts";
import type { Gatherer } from "./gatherer.ts";

export interface PerformanceArtifact {
  /** Main-thread task time of the creative's renderer, ms (Performance.getMetrics TaskDuration). */
  cpuMs: number;
  /** Largest JS heap in use seen, bytes. */
  heapBytes: number;
}

/**
 * CPU and memory from Performance.getMetrics, sampled while the creative renders (so a page that later hangs still
 * has values) and once more before measuring. TaskDuration is the renderer main thread's own task time, not wall
 * clock, so it stays comparable when the machine is busy with other scans.
 */
export function gatherPerformance(client: CDPSession) {
  const artifact: PerformanceArtifact = { cpuMs: 0, heapBytes: 0 };
  let last = 0;
  async function sample(): Promise<void> {
    const m = await bounded(client.send("Performance.getMetrics"), 2_000, undefined);
    if (!m) return;
    const get = (n: string) => m.metrics.find((x) => x.name === n)?.value ?? 0;
    artifact.cpuMs = Math.max(artifact.cpuMs, Math.round(get("TaskDuration") * 1000));
    artifact.heapBytes = Math.max(artifact.heapBytes, Math.round(get("JSHeapUsedSize")));
  }
  return {
    artifact,
    async start() {
      await client.send("Performance.enable", { timeDomain: "timeTicks" });
    },
    sample,
    /** Samples at most once a second (called from the render loop). */
    tick(now: number): void {
      if (now - last < 1_000) return;
      last = now;
      void sample();
    },
    stop() {},
  } satisfies Gatherer<PerformanceArtifact> & Record<string, unknown>;
}
