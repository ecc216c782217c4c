import { create } from "@bufbuild/protobuf";
import { ErrorType, ScanErrorSchema, ScanKind, type ScanJob } from "@cva/contracts";
import { startEgressProxy, startWorker, type JobOutcome, type OutboundPolicy, type Worker } from "@cva/platform";
import type { NatsConnection } from "@nats-io/transport-node";
import type { Logger } from "pino";
import type { BrowserPool } from "../browser-pool.ts";
import { DEFAULT_SIMID_TIMEOUTS, type SimidTimeouts } from "./harness-page.ts";
import { runSimid, simidRunBudgetMs, type SimidRunDeps } from "./run-simid.ts";

// SCAN_KIND_SIMID: the VAST analyzer's SIMID creatives (its simid-via-dispatcher.ts), run on this process's browser
// pool beside the tag scans (a run holds one browser slot, as a scan does). Jobs at a time: TAG_SIMID_SLOTS, 2.

/** One SIMID job → its outcome; a job without a SIMID input is refused (PAYLOAD). */
export function simidJobRunner(deps: SimidRunDeps): (job: ScanJob, signal: AbortSignal) => Promise<JobOutcome> {
  const timeouts: SimidTimeouts = { ...DEFAULT_SIMID_TIMEOUTS, ...deps.timeouts };
  return async (job, signal) => {
    if (job.input.case !== "simid") {
      return { case: "error", value: create(ScanErrorSchema, { type: ErrorType.PAYLOAD, message: "data: the job carries no SIMID creative" }) };
    }
    const deadline = job.deadlineUnixMs > 0n ? Number(job.deadlineUnixMs) - 500 : Date.now() + simidRunBudgetMs(timeouts);
    return { case: "simid", value: await runSimid({ ...deps, timeouts }, job.input.value, { deadline, signal }) };
  };
}

export async function startSimidWorker(opts: {
  nc: NatsConnection;
  logger: Logger;
  location: string;
  pool: BrowserPool;
  policy: OutboundPolicy;
  slots?: number;
  timeouts?: Partial<SimidTimeouts>;
}): Promise<Worker> {
  const run = simidJobRunner({
    pool: opts.pool,
    policy: opts.policy,
    startProxy: (policy, listenOn) => startEgressProxy({ policy, listenOn }),
    timeouts: opts.timeouts,
  });
  return startWorker(opts.nc, {
    kind: ScanKind.SIMID,
    location: opts.location,
    slots: opts.slots ?? 2,
    logger: opts.logger,
    handle: (job, ctx) => run(job, ctx.signal),
  });
}
