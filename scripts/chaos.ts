// `npm run chaos`: faults under load on a three-node NATS cluster (scripts/lib/chaos/run.ts), then one table. Exits 1
// when a request was lost, charges differ from the distinct jobs reported (a scan charged without its report, or a
// report not charged), an impression fired twice for one job or a reservation left uncommitted. CHAOS_REQUESTS (default 60) and CHAOS_CONCURRENCY (default 6) size the load; CHAOS_LOG_FILE keeps
// every process's log lines.
import { writeFileSync } from "node:fs";
import { envInt } from "@cva/platform";
import { chaosTable, runChaos } from "./lib/chaos/run.ts";

const requests = envInt("CHAOS_REQUESTS", 60);
const result = await runChaos({
  requests,
  concurrency: envInt("CHAOS_CONCURRENCY", 6),
  budgetMs: 180_000,
  faults: [
    { target: "nats", after: 0.15 },
    { target: "tag-scanner", after: 0.35 },
    { target: "media-prober", after: 0.55 },
    { target: "edge", after: 0.7 },
  ],
  progress: (l) => process.stdout.write(`[chaos] ${l}\n`),
});
if (process.env.CHAOS_LOG_FILE) writeFileSync(process.env.CHAOS_LOG_FILE, result.logs.join("\n") + "\n");
process.stdout.write(`\n${chaosTable(result)}\n\n`);
for (const o of result.lost) process.stdout.write(`lost: request ${o.n} (${o.kind}) after ${o.attempts} attempts: ${o.last}\n`);
const failed = result.lost.length > 0 || result.charges !== result.reportJobs || result.doubleFiredJobs > 0 || result.heldLeft > 0 || result.pixelHits > result.firings;
process.stdout.write(`${failed ? "FAILED" : "passed"} in ${(result.durationMs / 1000).toFixed(0)} s\n`);
process.exit(failed ? 1 : 0);
