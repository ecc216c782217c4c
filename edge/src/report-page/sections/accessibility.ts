import { ms } from "../format.ts";
import { isMediaAccessibility, renderMediaAccessibility, seizureRisk } from "./media-accessibility.ts";
import { bulletList, esc, finite, flag, isObj, kvTable, objs, table, text, type J } from "../html.ts";

// Accessibility and photosensitivity (issue 25): the one-line summary first, then the flash figures, motion and its
// pause control, and the axe-core findings with where they are. Nothing for a report without the section.

const PAUSE: Record<string, string> = {
  not_needed: "not needed (the motion lasts 5 s or less)",
  works: "found, clicked, and the motion stopped",
  does_not_work: "found and clicked, but the creative kept moving",
  missing: "none: no visible control named pause or stop",
  not_verified: "found, but the motion had ended before it could be tried",
};

export function renderAccessibility(report: J): string {
  const a = report.accessibility;
  if (!isObj(a) || a.summary === undefined) return "";
  if (isMediaAccessibility(a)) return renderMediaAccessibility(a);
  const worst = finite(a.worst_second_ms);
  const flashes: Array<[string, string]> = [
    ["Flashes per second (most)", esc(a.max_flashes_per_second)],
    ["Red flashes per second (most)", esc(a.max_red_flashes_per_second)],
    ["Seizure risk (WCAG 2.3.1)", seizureRisk(a)],
    ["Worst second", worst !== undefined && worst >= 0 ? esc(`from ${ms(worst)} after the render started`) : ""],
    ["Judged", a.flashes_judged === false ? esc(`no: ${text(a.flashes_not_judged_reason)}`) : a.flashes_judged ? "yes" : ""],
    ["Frames analysed", esc(a.frames_analyzed)],
    ["Motion over 5 s", a.motion_over_5s === undefined ? "" : flag(a.motion_over_5s)],
    ["Pause control", esc(PAUSE[text(a.pause_control)] ?? text(a.pause_control))],
    ["Its name", a.pause_control_name ? `<code>${esc(a.pause_control_name)}</code>` : ""],
  ];
  const findings = objs(a.violations).map((v) => [
    `<code>${esc(v.rule_id)}</code>`, esc(v.impact), esc(v.count),
    esc(Array.isArray(v.wcag) ? v.wcag.join(", ") : ""),
    Array.isArray(v.targets) ? v.targets.slice(0, 5).map((t: unknown) => `<code>${esc(t)}</code>`).join("<br>") : "",
    esc(v.help),
  ]);
  const notChecked = objs(a.not_checked).map((n) => `${text(n.count)} × ${text(n.kind)}: ${text(n.reason)}`);
  const doc = Array.isArray(a.rules_checked) && a.rules_checked.length === 0
    ? `<p class="note">Document checks did not run: ${esc(a.document_check_error)}</p>`
    : findings.length === 0 ? `<p>axe-core found nothing in the rules it ran (${esc((a.rules_checked ?? []).join(", "))}).</p>` : "";
  return `<p class="summary"><strong>${esc(a.summary)}</strong></p>${kvTable(flashes)}${
    table([{ head: "Rule" }, { head: "Impact" }, { head: "Elements", kind: "num" }, { head: "WCAG" }, { head: "Where", kind: "url" }, { head: "What" }], findings, { caption: "axe-core findings, every frame" })
  }${doc}${notChecked.length ? `<p class="note">Not checked (not passed):</p>${bulletList(notChecked)}` : ""}`;
}
