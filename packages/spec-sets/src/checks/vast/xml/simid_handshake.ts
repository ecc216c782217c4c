import type { VastReport, VastSimidRun } from "@cva/contracts";
import type { VastXmlTest } from "../../../types.ts";

/** What went wrong in one SIMID run, in words; empty when the creative completed the handshake without an error. */
export function simidProblems(r: VastSimidRun): string[] {
  const out = [...r.errors];
  if (out.length === 0) {
    if (!r.sessionCreated) out.push("no createSession");
    else if (!r.initResolved) out.push("SIMID:Player:init not resolved");
    else if (!r.startResolved) out.push("SIMID:Player:startCreative not resolved");
  }
  return out;
}

export const simid_handshake: VastXmlTest = {
  meta: {
    id: "simid_handshake",
    name: "SIMID handshake",
    data_type: "int",
    unit: "count",
    description:
      "SIMID interactive files run behind our SIMID 1.1 player harness that did not complete createSession → SIMID:Player:init → SIMID:Player:startCreative within the harness's time-outs, or that reported an error (SIMID:Creative:fatalError, a reject, a protocol violation). Listed only when a SIMID file was run; the message lists the first ones.",
  },
  measure(report: VastReport) {
    const run = report.simid.filter((r) => r.run);
    if (run.length === 0) return null;
    const faulty = run.map((r) => ({ r, p: simidProblems(r) })).filter((x) => x.p.length > 0);
    const scope = `${run.length} SIMID file${run.length === 1 ? "" : "s"} run`;
    if (faulty.length === 0) return { value: 0, detail: scope };
    const shown = faulty.slice(0, 3).map(({ r, p }) => `${r.url.slice(0, 120)}: ${p.join("; ")}`);
    return { value: faulty.length, detail: `${scope}; ${shown.join(" | ")}${faulty.length > 3 ? ` | and ${faulty.length - 3} more` : ""}` };
  },
};
