import type { ScanJob } from "@cva/contracts";
import { jobForState } from "./consent-run.ts";
import type { ConsentState } from "./consent-states.ts";

/** One consent state: rendered (with why), or derived from the full no_cmp run (with why that is sound). */
export type StatePlan =
  | { state: ConsentState; render: true; because: string }
  | { state: ConsentState; render: false; derived: string };

/**
 * The signals a state's CMP changes (consent-cmp.js with the state's CmpConfig): what a creative must look for to see
 * that state differ from no_cmp. `__cmp` (TCF v1, which no state answers) and `tamper`/`unscanned` count for every
 * state: a creative that looks for a v1 CMP is consent-aware, and one that hid its scripts or took the sensor apart
 * is not believed.
 */
function signalsOf(s: ConsentState): Set<string> {
  const out = new Set(["__cmp", "__cmpLocator", "__cmpCall", "tamper", "unscanned"]);
  if (s.cmp.tcString !== null) for (const n of ["__tcfapi", "__tcfapiLocator", "__tcfapiCall"]) out.add(n);
  if (s.cmp.gpp) for (const n of ["__gpp", "__gppLocator", "__gppCall"]) out.add(n);
  if (s.cmp.uspString !== null) for (const n of ["__uspapi", "__uspapiLocator", "__uspapiCall"]) out.add(n);
  if (s.cmp.gpc) out.add("globalPrivacyControl");
  return out;
}

/** Whether filling the state's macros changes the creative (its markup, or a bundle's HTML/JS). */
function macrosChange(job: ScanJob, state: ConsentState): boolean {
  const filled = jobForState(job, state);
  if (filled === job || job.input.case !== "tag" || filled.input.case !== "tag") return false;
  const [a, b] = [job.input.value.creative, filled.input.value.creative];
  if (a.case === "html" && b.case === "html") return a.value !== b.value;
  if (a.case === "bundle" && b.case === "bundle") return a.value.files.some((f, i) => f !== b.value.files[i]);
  return true;
}

/**
 * Which consent states must be rendered (README "Consent states": what makes a state differ from no_cmp). A state
 * renders the creative differently from no_cmp only through what it changes: its CMP (seen only by code that looks
 * for it — the sensor), its macros (the creative's own text changes), and its request headers (Sec-GPC: 1, which a
 * server may act on — the point of GPC). A state none of which reaches the creative is derived from no_cmp: the same
 * cookies, storage, requests and pixels, judged under that state's consent. `derive` false renders every state.
 */
export function planConsentStates(input: {
  job: ScanJob;
  states: readonly ConsentState[];
  /** The sensor's findings in the full run (consent-sensor.ts). */
  seen: readonly string[];
  /** Hosts outside the synthetic origin the full run contacted (servers that would see the state's headers). */
  serverHosts: readonly string[];
  derive: boolean;
}): StatePlan[] {
  return input.states.map((state): StatePlan => {
    if (!input.derive) return { state, render: true, because: "every state is rendered (TAG_CONSENT_DERIVE=0)" };
    const looked = input.seen.filter((n) => signalsOf(state).has(n));
    if (looked.length > 0) return { state, render: true, because: `the creative looked for ${looked.join(", ")}` };
    if (macrosChange(input.job, state)) return { state, render: true, because: "the creative's consent macros are filled with this state's values" };
    const headers = Object.keys(state.headers);
    if (headers.length > 0 && input.serverHosts.length > 0) {
      const hosts = input.serverHosts.slice(0, 3).join(", ") + (input.serverHosts.length > 3 ? ` and ${input.serverHosts.length - 3} more` : "");
      return { state, render: true, because: `servers the creative contacts (${hosts}) receive ${headers.join(", ")} and may answer differently` };
    }
    const what = [
      "looked for none of this state's consent signals", "has no consent macros",
      ...(headers.length > 0 ? [`contacted no server that would receive ${headers.join(", ")}`] : []),
    ];
    return { state, render: false, derived: `not rendered: the creative ${what.join(", ")}; it renders as in no_cmp` };
  });
}
