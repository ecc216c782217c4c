// The consent states' cost end to end (services/tag-scanner README "Consent states"): the static 300x250 v3 tag's
// p50 on the main stack (consent states on, the default: a creative that looks for no consent signal has its states
// derived from the full run) beside a stack whose tag scanner has them off (TAG_CONSENT_STATES=0); and the same for
// a tag that reads __tcfapi (its two TCF states rendered, on consent pages built ahead). The two stacks are measured
// one after the other, not alternated: each needs its own scanner.
import { b64 } from "../test/harness/stack.ts";
import { AD, TAG_BODY } from "./creatives.ts";
import { scanAttempt } from "./load.ts";
import type { Ctx } from "./sections.ts";
import { type BenchTable, ms, pct, plusMs } from "./table.ts";

/** The static creative and a call of the TCF API: what a consent-aware tag does at least. */
export const TCF_READER_BODY = { data: b64(`${AD}<script>if (typeof __tcfapi === "function") __tcfapi("getTCData", 2, function () {});</script>`) };

/** p50 of `rounds` v3 tag scans through the edge, after two warm-up scans; undefined when none succeeded. */
export async function staticTagP50(ctx: Ctx, body: object = TAG_BODY, rounds = 12): Promise<number | undefined> {
  const once = async () => {
    const t = performance.now();
    const a = await scanAttempt(ctx.stack.baseUrl, "/v3/scanTag", body, ctx.key)();
    return a.ok ? performance.now() - t : undefined;
  };
  await once();
  await once();
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const t = await once();
    if (t !== undefined) times.push(t);
  }
  return times.length ? pct(times, 50) : undefined;
}

export interface ConsentP50s { staticTag?: number; tcfReader?: number }

/** Both tags' p50 on one stack. */
export async function consentP50s(ctx: Ctx): Promise<ConsentP50s> {
  return { staticTag: await staticTagP50(ctx), tcfReader: await staticTagP50(ctx, TCF_READER_BODY) };
}

/** Goal for the static tag (issue 24): the consent states may add at most this to a tag that reads no consent. */
const STATIC_GOAL_MS = 100;

export function addConsentRows(table: BenchTable, on: ConsentP50s, off: ConsentP50s): void {
  const goal = `≤ +${STATIC_GOAL_MS} ms`;
  if (on.staticTag === undefined || off.staticTag === undefined) table.missing("static v3 tag p50 with / without consent states", "a scan series failed", goal);
  else {
    table.add({
      figure: "static 300x250 v3 tag, 1 client, p50 with the consent states (default; all three derived: it looks for no consent)",
      value: ms(on.staticTag),
      floor: `${ms(off.staticTag)} without (TAG_CONSENT_STATES=0)`,
      vs: plusMs(on.staticTag, off.staticTag),
      goal,
      met: on.staticTag - off.staticTag <= STATIC_GOAL_MS,
    });
  }
  if (on.tcfReader === undefined || off.tcfReader === undefined) table.missing("__tcfapi-reading v3 tag p50 with / without consent states", "a scan series failed");
  else {
    table.add({
      figure: "the same tag calling __tcfapi, 1 client, p50 with the consent states (tcf_denied and tcf_granted rendered, on pages built ahead)",
      value: ms(on.tcfReader),
      floor: `${ms(off.tcfReader)} without (TAG_CONSENT_STATES=0)`,
      vs: plusMs(on.tcfReader, off.tcfReader),
    });
  }
}
