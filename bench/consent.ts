// The consent states' cost end to end (services/tag-scanner README "Consent states"): the static 300x250 v3 tag's
// p50 on the main stack (no consent runs, the default) beside a stack whose tag scanner runs them
// (TAG_CONSENT_STATES=1). The two are measured one after the other, not alternated: each needs its own scanner.
import { TAG_BODY } from "./creatives.ts";
import { scanAttempt } from "./load.ts";
import type { Ctx } from "./sections.ts";
import { type BenchTable, ms, pct, plusMs } from "./table.ts";

/** p50 of `rounds` static v3 tag scans through the edge, after two warm-up scans; undefined when none succeeded. */
export async function staticTagP50(ctx: Ctx, rounds = 12): Promise<number | undefined> {
  const once = async () => {
    const t = performance.now();
    const a = await scanAttempt(ctx.stack.baseUrl, "/v3/scanTag", TAG_BODY, ctx.key)();
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

export function addConsentRow(table: BenchTable, withConsent: number | undefined, without: number | undefined): void {
  if (withConsent === undefined || without === undefined) {
    table.missing("static v3 tag p50 with / without consent states", "a scan series failed");
    return;
  }
  table.add({
    figure: "static 300x250 v3 tag, 1 client, p50 with the consent states (tcf_denied, tcf_granted, gpp_us_opt_out)",
    value: ms(withConsent),
    floor: `${ms(without)} without (the default, TAG_CONSENT_STATES=0)`,
    vs: plusMs(withConsent, without),
  });
}
