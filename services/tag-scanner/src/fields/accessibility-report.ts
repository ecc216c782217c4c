import type { MessageInitShape } from "@bufbuild/protobuf";
import { Accessibility_PauseControl, type AccessibilitySchema } from "@cva/contracts";
import type { A11yArtifact, PauseArtifact } from "../gatherers/accessibility.ts";
import type { FlashArtifact } from "../gatherers/flashes.ts";
import { flashFields, motionOver5s } from "./accessibility.ts";

/** What the scan gathered for the accessibility report (each part absent when its step did not run). */
export interface AccessibilityArtifacts extends Partial<A11yArtifact> {
  flashes?: FlashArtifact;
}

/** WCAG 2.2.2's answer from the pause step: only motion over 5 s needs a control. */
export function pauseControl(moving: boolean, pause: PauseArtifact | undefined): Accessibility_PauseControl {
  if (!moving) return Accessibility_PauseControl.NOT_NEEDED;
  if (!pause?.control) return Accessibility_PauseControl.MISSING;
  switch (pause.outcome) {
    case "works": return Accessibility_PauseControl.WORKS;
    case "does_not_work": return Accessibility_PauseControl.DOES_NOT_WORK;
    default: return Accessibility_PauseControl.NOT_VERIFIED;
  }
}

const CANVAS_REASON = "text drawn into a canvas is pixels, not DOM: axe cannot read it, so its contrast and text alternative were not checked";
const IMAGE_REASON = "text baked into an image is pixels: axe cannot read it, so its contrast was not checked (an <img>'s alternative text is, by image-alt)";

/** The `accessibility` message of the tag report: a pure function of the artifacts. */
export function buildAccessibility(
  a: AccessibilityArtifacts | undefined,
  ctx: { renderStartMs: number; animationMs: number; rendered: boolean; starved?: string },
): MessageInitShape<typeof AccessibilitySchema> {
  const flashes = flashFields(a?.flashes, ctx.renderStartMs, ctx.starved);
  const moving = motionOver5s(ctx.animationMs, ctx.rendered);
  const doc = a?.document;
  return {
    ...flashes,
    motionOver5s: moving,
    pauseControl: pauseControl(moving, a?.pause),
    pauseControlName: moving ? (a?.pause?.control ?? "") : "",
    violations: (doc?.violations ?? []).map((v) => ({ ruleId: v.ruleId, impact: v.impact, count: v.count, targets: v.targets, wcag: v.wcag, help: v.help })),
    notChecked: [
      ...(a?.canvases ? [{ kind: "canvas_text", count: a.canvases, reason: CANVAS_REASON }] : []),
      ...(a?.images ? [{ kind: "image_text", count: a.images, reason: IMAGE_REASON }] : []),
    ],
    rulesChecked: doc?.rulesChecked ?? [],
    documentCheckError: doc ? doc.error : "the document checks did not run",
  };
}
