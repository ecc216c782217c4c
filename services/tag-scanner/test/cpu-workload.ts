// Creatives with a known CPU cost on the reference device, for the cpu tests (cpu-load-render, cpu-contention).

const BOX = `<div style="width:300px;height:250px;background:#456"></div>`;

/**
 * `perSecond` iterations a second of Lighthouse's BenchmarkIndex workloads — half string building (GC), half array
 * copies — in 10 bursts a second. The reference device (BenchmarkIndex 1000) runs 10 000 of them a second by the
 * index's definition (iterations / 10 / second), so 1 000 a second is 10 % of its core, whatever host scans it.
 */
export function benchmarkMix(perSecond: number): string {
  const half = Math.round(perSecond / 20);
  // Fixed work per second of wall time, not per timer tick: a host under contention runs a 100 ms interval late and
  // drops ticks (cpu-contention read 10.8 % against 13.0 % alone in CI, 17 % apart, from ~17 % fewer bursts), so each
  // tick runs the bursts that were due since the start.
  return `${BOX}<script>
const a = [], b = [];
for (let i = 0; i < 100000; i++) a[i] = b[i] = i;
let n = 0, done = 0;
const t0 = performance.now();
function burst() {
  for (let k = 0; k < ${half}; k++) { let s = ''; for (let j = 0; j < 10000; j++) s += 'a'; if (s.length === 1) throw 0; }
  for (let k = 0; k < ${half}; k++, n++) { const src = n % 2 ? b : a, tgt = n % 2 ? a : b; for (let j = 0; j < src.length; j++) tgt[j] = src[j]; }
}
setInterval(() => {
  const due = Math.floor((performance.now() - t0) / 100);
  for (; done < due; done++) burst();
}, 100);
</script>`;
}

export const staticBanner = BOX;

/**
 * Idle 1.5 s, then one task of fixed work: `iterations` of Lighthouse's BenchmarkIndex workloads, half string building,
 * half array copies — the index's own mix, so its cost on the reference device is known whatever this host's two
 * halves cost (the reference runs 10 000 a second: 10 000 is 1 s of its core). Fixed work, not a wall-clock loop: on a
 * busy host a loop timed by Date.now() gets only the CPU the host spares it. (Its first form, 8 000 string builds
 * only, was measured against the index's mix: the halves cost this host unequally, 0.75–0.9 of the mix for strings.)
 */
export function burst(iterations: number): string {
  const half = Math.round(iterations / 2);
  return `${BOX}<script>
const a = [], b = [];
for (let i = 0; i < 100000; i++) a[i] = b[i] = i;
setTimeout(() => {
  for (let k = 0; k < ${half}; k++) { let s = ''; for (let j = 0; j < 10000; j++) s += 'a'; if (s.length === 1) throw 0; }
  for (let k = 0; k < ${half}; k++) { const src = k % 2 ? b : a, tgt = k % 2 ? a : b; for (let j = 0; j < src.length; j++) tgt[j] = src[j]; }
}, 1500);
</script>`;
}
