// The CPU calibration's spread over service starts (issue 21 §3): `npx tsx services/tag-scanner/scripts/calibration-spread.ts [starts]`.
// Each start is a fresh browser pool, as the service's warm-up makes one: the index it found, its runs, and the CPU
// (user+sys) the calibration cost this process tree.
import { createBrowserPool } from "../src/index.ts";
import { calibrateCpu } from "../src/cpu-calibration.ts";

const starts = Number(process.argv[2] ?? 10);
const found: number[] = [];
for (let i = 0; i < starts; i++) {
  const pool = createBrowserPool({ browsers: 1, slots: 1 });
  const lease = await pool.acquire();
  try {
    const t0 = Date.now();
    const c = await calibrateCpu(lease.browser);
    found.push(c.benchmarkIndex);
    console.log(`start ${i + 1}: index ${c.benchmarkIndex} runs ${c.runs.join("/")} ${Date.now() - t0} ms wall ${JSON.stringify((c as { detail?: unknown }).detail ?? "")}`);
  } finally {
    lease.release();
    await pool.close();
  }
}
const s = [...found].sort((a, b) => a - b);
console.log(`spread: min ${s[0]} median ${s[Math.floor(s.length / 2)]} max ${s[s.length - 1]} (max/min ${(s[s.length - 1]! / s[0]!).toFixed(3)})`);
