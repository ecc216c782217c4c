import { Accessibility_PauseControl, type Accessibility } from "@cva/contracts";
import { arr, bool, int, obj, orEmpty, str } from "./shared.ts";

// v3 (tag and zip): the creative's accessibility and photosensitivity (issue 25), from the tag scanner's
// `accessibility` section. An empty object for a report stored before it was measured.

const violationSchema = obj({
  rule_id: str("axe-core rule id: image-alt, input-image-alt, role-img-alt, area-alt, svg-img-alt, link-name, button-name, color-contrast, html-has-lang, html-lang-valid"),
  impact: str("axe-core impact: minor, moderate, serious or critical"),
  count: int("failing elements, in every frame of the creative"),
  targets: arr(str(), "a CSS selector for each failing element (at most 20); in a frame, prefixed \"frame <url> >> \""),
  wcag: arr(str(), "the WCAG 2.2 success criteria the rule maps to, e.g. \"1.1.1\""),
  help: str("axe-core's one-line description of the rule"),
});

const notCheckedSchema = obj({
  kind: str("canvas_text (text drawn into a canvas) or image_text (text baked into an image)"),
  count: int("visible canvases of at least 400 CSS px², or images of at least 40x12 CSS px"),
  reason: str("why it could not be checked: it is pixels, not DOM; it was not passed"),
});

export const accessibilitySchema = orEmpty(
  obj({
    summary: str("one line in plain language: flashing, motion and the document checks"),
    max_flashes_per_second: int("most general flashes in any one second (pairs of opposing relative-luminance transitions of at least 0.1 with the darker state below 0.8, together over more than a quarter of a 10-degree visual field), from every changed frame of the render"),
    max_red_flashes_per_second: int("most red flashes (pairs of opposing transitions to or from a saturated red) in any one second"),
    red_flash: bool("more than three red flashes in some second"),
    flash_risk: bool("WCAG 2.3.1 fails: more than three general or red flashes in some second"),
    worst_second_ms: int("start of the second with the most flashes, milliseconds after the render started; -1 when no flash was seen"),
    flashes_judged: bool("false when no risk was seen but frames may have been missed (a starved renderer, a screencast at its in-flight limit): flash_risk false then proves nothing"),
    flashes_not_judged_reason: str("why flashes_judged is false; empty otherwise"),
    frames_analyzed: int("changed frames analysed (the screencast sends one per compositor frame that drew something new, up to 60 per second)"),
    flash_area_threshold_px: int("the flash area threshold, CSS px²: a quarter of a 10-degree field, taken as a third of the viewport's width and height (WCAG's 341x256 px at 1024x768)"),
    motion_over_5s: bool("the creative moves for more than 5 s after its first paint, or endlessly (WCAG 2.2.2)"),
    pause_control: str("not_needed (motion of 5 s or less), works (a visible control named pause or stop was clicked and the motion stopped), does_not_work, missing, not_verified (found, but the motion had ended before it could be tried)"),
    pause_control_name: str("the accessible name of the control found; empty when none"),
    violations: arr(violationSchema, "axe-core findings, one per rule, over every frame"),
    not_checked: arr(notCheckedSchema, "what axe cannot check, named rather than passed"),
    rules_checked: arr(str(), "the axe-core rules run; empty when the document checks did not run"),
    document_check_error: str("why the document checks did not run; empty when they did"),
  }),
  "accessibility and photosensitivity of the creative, measured (WCAG 2.2); empty for a report stored before it was measured",
);

const PAUSE: Record<number, string> = {
  [Accessibility_PauseControl.NOT_NEEDED]: "not_needed",
  [Accessibility_PauseControl.WORKS]: "works",
  [Accessibility_PauseControl.DOES_NOT_WORK]: "does_not_work",
  [Accessibility_PauseControl.MISSING]: "missing",
  [Accessibility_PauseControl.NOT_VERIFIED]: "not_verified",
};

/** One plain-language line: what a person reviewing the ad needs to know first. */
export function accessibilitySummary(a: Pick<Accessibility, "flashRisk" | "flashesJudged" | "maxFlashesPerSecond" | "maxRedFlashesPerSecond" | "redFlash" | "motionOver5s" | "pauseControl" | "rulesChecked"> & { violations: Array<{ ruleId: string; count: number }> }): string {
  const parts: string[] = [];
  if (a.flashRisk) {
    const n = Math.max(a.maxFlashesPerSecond, a.maxRedFlashesPerSecond);
    parts.push(`Flashes ${n} times a second${a.redFlash ? " (red)" : ""}: a seizure risk (fails WCAG 2.3.1)`);
  } else if (!a.flashesJudged) parts.push("Flashing could not be judged (frames may have been missed)");
  else parts.push("No dangerous flashing");
  if (a.motionOver5s) {
    const p = a.pauseControl;
    parts.push(
      p === Accessibility_PauseControl.WORKS ? "moves over 5 s and its pause control works"
        : p === Accessibility_PauseControl.DOES_NOT_WORK ? "moves over 5 s and its pause control does not stop it"
          : p === Accessibility_PauseControl.NOT_VERIFIED ? "moves over 5 s; a pause control was found but not tried"
            : "moves over 5 s with no way to pause it",
    );
  }
  if (a.rulesChecked.length === 0) parts.push("document checks did not run");
  else {
    const n = a.violations.reduce((s, v) => s + v.count, 0);
    parts.push(n === 0 ? "no problems in its markup" : `${n} markup problem${n === 1 ? "" : "s"} (${[...new Set(a.violations.map((v) => v.ruleId))].join(", ")})`);
  }
  return `${parts.join("; ")}.`;
}

export function accessibilityView(a: Accessibility | undefined) {
  if (!a) return {};
  return {
    summary: accessibilitySummary(a),
    max_flashes_per_second: a.maxFlashesPerSecond,
    max_red_flashes_per_second: a.maxRedFlashesPerSecond,
    red_flash: a.redFlash,
    flash_risk: a.flashRisk,
    worst_second_ms: Number(a.worstSecondMs),
    flashes_judged: a.flashesJudged,
    flashes_not_judged_reason: a.flashesNotJudgedReason,
    frames_analyzed: a.framesAnalyzed,
    flash_area_threshold_px: Number(a.flashAreaThresholdPx),
    motion_over_5s: a.motionOver5s,
    pause_control: PAUSE[a.pauseControl] ?? "not_needed",
    pause_control_name: a.pauseControlName,
    violations: a.violations.map((v) => ({ rule_id: v.ruleId, impact: v.impact, count: v.count, targets: [...v.targets], wcag: [...v.wcag], help: v.help })),
    not_checked: a.notChecked.map((n) => ({ kind: n.kind, count: n.count, reason: n.reason })),
    rules_checked: [...a.rulesChecked],
    document_check_error: a.documentCheckError,
  };
}
