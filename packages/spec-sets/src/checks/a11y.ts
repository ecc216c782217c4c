import { Accessibility_PauseControl, type Accessibility, type TagReport } from "@cva/contracts";
import type { Measurement } from "../types.ts";

/** The report's accessibility section, or "not evaluated" (a scan from before it existed, or one that failed). */
export function accessibility(report: TagReport): Accessibility {
  if (!report.accessibility) throw new Error("the report has no accessibility section");
  return report.accessibility;
}

/**
 * Elements failing the given axe rules, with where they are; "not evaluated" (with why) when the document checks did
 * not run. What axe cannot check (canvas text, text in images) is named in the detail: it was not passed.
 */
export function axeFindings(report: TagReport, rules: readonly string[], opts: { notCheckedKinds?: readonly string[] } = {}): Measurement {
  const a = accessibility(report);
  if (a.rulesChecked.length === 0) throw new Error(`${a.documentCheckError || "the document checks did not run"}`);
  const found = a.violations.filter((v) => rules.includes(v.ruleId));
  const count = found.reduce((s, v) => s + v.count, 0);
  const parts = found.map((v) => `${v.ruleId}: ${v.count} (${v.targets.slice(0, 5).join(", ")}${v.targets.length > 5 ? ", …" : ""})`);
  const skipped = a.notChecked.filter((n) => opts.notCheckedKinds?.includes(n.kind)).map((n) => `${n.count} ${n.kind === "canvas_text" ? "canvas(es)" : "image(s)"} not checked (${n.kind})`);
  const detail = [...parts, ...skipped].join("; ");
  return detail ? { value: count, detail } : count;
}

export function pauseMeasure(report: TagReport): Measurement {
  const a = accessibility(report);
  const name = a.pauseControlName ? `"${a.pauseControlName}"` : "";
  switch (a.pauseControl) {
    case Accessibility_PauseControl.NOT_NEEDED: return { value: 1, detail: "the motion lasts 5 s or less" };
    case Accessibility_PauseControl.WORKS: return { value: 1, detail: `the control ${name} stopped the motion when clicked` };
    case Accessibility_PauseControl.DOES_NOT_WORK: return { value: 0, detail: `the control ${name} was clicked and the creative kept moving` };
    case Accessibility_PauseControl.MISSING: return { value: 0, detail: "the creative moves for more than 5 s and has no visible control named pause or stop" };
    case Accessibility_PauseControl.NOT_VERIFIED:
      throw new Error(`the control ${name} was found, but the motion had ended before it could be tried`);
    default:
      throw new Error("the pause control was not looked for");
  }
}

/** The photosensitivity fields the tag, video-file and VAST media-file reports share (WCAG 2.3.1). */
interface FlashFields {
  maxFlashesPerSecond: number;
  maxRedFlashesPerSecond: number;
  redFlash: boolean;
  flashRisk: boolean;
  flashesJudged: boolean;
  flashesNotJudgedReason: string;
  worstSecondMs: bigint;
}

/**
 * The three-flashes verdict, the same on every kind: the most flashes in one second; a risk names its kinds and its
 * second (counted from `from`); no risk without every second seen is "not evaluated", with the analysis's reason.
 */
export function flashMeasurement(a: FlashFields, from: string): Measurement {
  const worst = Math.max(a.maxFlashesPerSecond, a.maxRedFlashesPerSecond);
  if (!a.flashRisk && !a.flashesJudged) throw new Error(a.flashesNotJudgedReason || "flashing could not be judged");
  if (!a.flashRisk) return worst;
  const kinds = [a.maxFlashesPerSecond > 3 ? `${a.maxFlashesPerSecond} general` : "", a.redFlash ? `${a.maxRedFlashesPerSecond} red` : ""].filter(Boolean).join(" and ");
  return { value: worst, detail: `${kinds} flashes in the second starting ${a.worstSecondMs} ms after ${from}` };
}
