import { create } from "@bufbuild/protobuf";
import { SimidInputSchema, VastSimidRunSchema, type ScanJob, type SimidInput, type VastSimidRun } from "@cva/contracts";
import type { SimidFile } from "./ad-details.ts";
import { mapBounded } from "./concurrency.ts";
import type { ScanBudget } from "./scan-budget.ts";
import { isHttpUrl, resolveVastUrl } from "./urls.ts";

// SIMID creatives are run where a browser is: each InteractiveCreativeFile apiFramework="SIMID" of the analysed ads
// becomes a run of the tag scanner's SIMID 1.1 player harness (a SCAN_KIND_SIMID job, simid-via-dispatcher.ts), within
// the scan's deadline. The analyzer never loads the creative itself.

/** Runs one SIMID creative for `parent` within `timeoutMs`; never throws for the creative's faults. */
export type SimidFn = (input: SimidInput, parent: ScanJob, call: { timeoutMs: number }) => Promise<VastSimidRun>;

/** Runs per scan (the first files in ad order), and at a time: each holds a browser slot for up to ~15 s. */
export const MAX_SIMID_RUNS = 4;
const SIMID_CONCURRENCY = 2;

export function notRun(url: string, adIndex: number, error: string): VastSimidRun {
  return create(VastSimidRunSchema, { url, adIndex, run: false, sessionMs: -1, initMs: -1, startMs: -1, error });
}

/** Every SIMID file of every ad (`files[i]` is ad i's, `baseUrls[i]` what its URLs resolve against), each run or said why not. */
export async function runSimidFiles(
  files: SimidFile[][],
  baseUrls: string[],
  opts: { simid?: SimidFn; job: ScanJob; budget: ScanBudget },
): Promise<VastSimidRun[]> {
  const all = files.flatMap((fs, adIndex) => fs.map((f) => ({ f, adIndex, base: baseUrls[adIndex] })));
  return mapBounded(all, SIMID_CONCURRENCY, async ({ f, adIndex, base }, i) => {
    const url = resolveVastUrl(f.url, base);
    if (!isHttpUrl(url)) return notRun(f.url, adIndex, `not run: ${JSON.stringify(f.url.slice(0, 200))} is not an http(s) URL`);
    if (!opts.simid) return notRun(url.href, adIndex, "not run: no SIMID player is configured for this analyzer");
    if (i >= MAX_SIMID_RUNS) return notRun(url.href, adIndex, `not run: more than ${MAX_SIMID_RUNS} SIMID files in the scan`);
    const time = opts.budget.time(Number.POSITIVE_INFINITY);
    if (time.ms <= 0) return notRun(url.href, adIndex, "not run: the scan's deadline was reached");
    const input = create(SimidInputSchema, { url: url.href, adParameters: f.adParameters.slice(0, 64 * 1024), clickThruUrl: f.clickThrough, durationSeconds: f.durationSeconds });
    const r = await opts.simid(input, opts.job, { timeoutMs: time.ms });
    r.adIndex = adIndex;
    return r;
  });
}
