import type { MessageInitShape } from "@bufbuild/protobuf";
import { Accessibility_PauseControl, type AccessibilitySchema } from "@cva/contracts";
import type { FlashArtifact } from "../gatherers/flashes.ts";
import { flashFields, motionOver5s } from "./accessibility.ts";

/** What the scan gathered for the accessibility report (each part absent when its step did not run). */
export interface AccessibilityArtifacts {
  flashes?: FlashArtifact;
}

/** The `accessibility` message of the tag report: a pure function of the artifacts. */
export function buildAccessibility(
  a: AccessibilityArtifacts | undefined,
  ctx: { renderStartMs: number; animationMs: number; rendered: boolean },
): MessageInitShape<typeof AccessibilitySchema> {
  const flashes = flashFields(a?.flashes, ctx.renderStartMs);
  const moving = motionOver5s(ctx.animationMs, ctx.rendered);
  return {
    ...flashes,
    motionOver5s: moving,
    pauseControl: moving ? Accessibility_PauseControl.UNSPECIFIED : Accessibility_PauseControl.NOT_NEEDED,
  };
}
