import { kid, kids, textOf, type XmlNode } from "../../xml-tree.ts";
import { attrOf } from "../context.ts";
import { rule, under } from "../define.ts";
import { SPEC } from "../spec.ts";
import { ALL, V3_UP, V4_UP, V41_UP } from "../versions.ts";
import { clockSeconds, isOffset, offsetSeconds } from "../values.ts";
import type { LintContext } from "../context.ts";
import type { LintRule, LintVersion } from "../types.ts";

// Tracking events: names per version (the enumerations of the IAB XSDs), progress offsets, duplicates that fire twice.

const group = "tracking_events" as const;

const V2 = ["creativeView", "start", "midpoint", "firstQuartile", "thirdQuartile", "complete", "mute", "unmute", "pause", "rewind", "resume", "fullscreen", "expand", "collapse", "acceptInvitation", "close"];
const V3 = [...V2, "exitFullscreen", "skip", "progress", "acceptInvitationLinear", "closeLinear"];
const V40 = ["mute", "unmute", "pause", "resume", "rewind", "skip", "playerExpand", "playerCollapse", "start", "firstQuartile", "midpoint", "thirdQuartile", "complete", "acceptInvitationLinear", "timeSpentViewing", "progress", "creativeView", "acceptInvitation", "adExpand", "adCollapse", "minimize", "close", "overlayViewDuration", "otherAdInteraction"];
const V41 = ["mute", "unmute", "pause", "resume", "rewind", "skip", "playerExpand", "playerCollapse", "loaded", "start", "firstQuartile", "midpoint", "thirdQuartile", "complete", "progress", "closeLinear", "creativeView", "acceptInvitation", "adExpand", "adCollapse", "minimize", "close", "overlayViewDuration", "otherAdInteraction"];
const V42 = [...V41, "interactiveStart"];

/** The event names of each version's schema (vast_2.0.1.xsd … vast_4.2.xsd; 4.3 keeps 4.2's). */
export const EVENTS: Record<Exclude<LintVersion, "vmap">, readonly string[]> = { "2.0": V2, "3.0": V3, "4.0": V40, "4.1": V41, "4.2": V42, "4.3": V42 };

/** Events a 4.x version dropped, with what replaces them. */
const REMOVED: Record<string, Record<string, string>> = {
  "4.0": { fullscreen: "playerExpand", exitFullscreen: "playerCollapse", expand: "playerExpand or adExpand", collapse: "playerCollapse or adCollapse", closeLinear: "close" },
  "4.1": { fullscreen: "playerExpand", exitFullscreen: "playerCollapse", expand: "playerExpand or adExpand", collapse: "playerCollapse or adCollapse", acceptInvitationLinear: "acceptInvitation", timeSpentViewing: "progress" },
};
const removedIn = (v: LintVersion | undefined): Record<string, string> => (v === "4.0" ? REMOVED["4.0"]! : v === "4.1" || v === "4.2" || v === "4.3" ? REMOVED["4.1"]! : {});

/** Tracking of creatives (not of a Verification: those have their own event). */
const creativeTrackings = (ctx: LintContext): XmlNode[] => under(ctx, "TrackingEvents", "Tracking").filter((n) => !ctx.ancestor(n, "Verification"));
const eventOf = (n: XmlNode): string | undefined => attrOf(n, "event")?.trim();

function durationFor(ctx: LintContext, n: XmlNode): number | undefined {
  const linear = ctx.ancestor(n, "Linear");
  return linear ? clockSeconds(textOf(kid(linear, "Duration"))) : undefined;
}

export const trackingRules: LintRule[] = [
  rule({
    id: "vast.tracking.event.enum", group, severity: "error", versions: ALL, spec: SPEC.tracking,
    title: "a tracking event is one of its version's events",
    *check(ctx) {
      if (!ctx.version || ctx.version === "vmap") return;
      const names = EVENTS[ctx.version];
      const lower = new Set(names.map((e) => e.toLowerCase()));
      const removed = removedIn(ctx.version);
      for (const n of creativeTrackings(ctx)) {
        const e = eventOf(n);
        if (e === undefined || e === "" || lower.has(e.toLowerCase()) || e in removed) continue;
        yield { node: n, message: `<Tracking event="${e}"> is not a VAST ${ctx.version} event: players never fire it; use one of ${names.slice(0, 8).join(", ")}, … (custom interactions: <CustomClick> or otherAdInteraction)` };
      }
    },
  }),
  rule({
    id: "vast.tracking.event.case", group, severity: "warning", versions: ALL, spec: SPEC.tracking,
    title: "tracking event names are spelled as the spec spells them",
    *check(ctx) {
      if (!ctx.version || ctx.version === "vmap") return;
      const names = EVENTS[ctx.version];
      for (const n of creativeTrackings(ctx)) {
        const e = eventOf(n);
        if (!e || names.includes(e)) continue;
        const right = names.find((x) => x.toLowerCase() === e.toLowerCase());
        if (right) yield { node: n, message: `<Tracking event="${e}">: event names are case-sensitive and players match "${right}"; write event="${right}"` };
      }
    },
  }),
  rule({
    id: "vast.tracking.event.removed", group, severity: "warning", versions: V4_UP, spec: `${SPEC.tracking} (events removed in 4.0 and 4.1)`,
    title: "VAST 4.x: no tracking events VAST 4 removed (fullscreen, expand …)",
    *check(ctx) {
      const removed = removedIn(ctx.version);
      for (const n of creativeTrackings(ctx)) {
        const e = eventOf(n);
        if (e && e in removed) yield { node: n, message: `<Tracking event="${e}"> was removed in VAST ${ctx.version === "4.0" ? "4.0" : "4.0/4.1"}: VAST ${ctx.version} players do not fire it; use ${removed[e]}` };
      }
    },
  }),
  rule({
    id: "vast.tracking.progress.offset.required", group, severity: "error", versions: V3_UP, spec: SPEC.tracking,
    title: "a progress event has an offset",
    *check(ctx) {
      for (const n of creativeTrackings(ctx)) {
        if (eventOf(n) === "progress" && attrOf(n, "offset") === undefined) yield { node: n, message: '<Tracking event="progress"> has no offset: add offset="00:00:10" (or "10%"); without it the player cannot tell when to fire' };
      }
    },
  }),
  rule({
    id: "vast.tracking.offset.format", group, severity: "error", versions: V3_UP, spec: SPEC.tracking,
    title: "a tracking offset is HH:MM:SS(.mmm) or n%",
    *check(ctx) {
      for (const n of creativeTrackings(ctx)) {
        const off = attrOf(n, "offset");
        if (off !== undefined && !isOffset(off)) yield { node: n, message: `<Tracking event="${eventOf(n) ?? ""}"> offset="${off}" is not HH:MM:SS, HH:MM:SS.mmm or a percentage: write it as 00:00:10.000 or 10%` };
      }
    },
  }),
  rule({
    id: "vast.tracking.offset.ignored", group, severity: "warning", versions: V3_UP, spec: SPEC.tracking,
    title: "only progress events carry an offset",
    *check(ctx) {
      for (const n of creativeTrackings(ctx)) {
        const e = eventOf(n);
        if (attrOf(n, "offset") !== undefined && e !== undefined && e !== "progress") yield { node: n, message: `<Tracking event="${e}"> has an offset: players use offsets only for progress; use event="progress" with this offset, or drop the offset` };
      }
    },
  }),
  rule({
    id: "vast.tracking.progress.beyond-duration", group, severity: "warning", versions: V3_UP, spec: SPEC.tracking,
    title: "a progress offset lies within the ad's duration",
    *check(ctx) {
      for (const n of creativeTrackings(ctx)) {
        if (eventOf(n) !== "progress") continue;
        const dur = durationFor(ctx, n);
        const at = offsetSeconds(attrOf(n, "offset") ?? "", dur);
        if (dur !== undefined && dur > 0 && at !== undefined && at > dur) yield { node: n, message: `<Tracking event="progress" offset="${attrOf(n, "offset")}"> lies after the ad's end (${dur} s): it never fires; lower the offset` };
      }
    },
  }),
  rule({
    id: "vast.tracking.duplicate", group, severity: "warning", versions: ALL, spec: SPEC.tracking,
    title: "no tracking URL is listed twice for the same event",
    *check(ctx) {
      for (const list of ctx.all("TrackingEvents")) {
        const seen = new Set<string>();
        for (const t of kids(list, "Tracking")) {
          const key = `${eventOf(t) ?? ""}|${attrOf(t, "offset") ?? ""}|${textOf(t)}`;
          if (textOf(t) === "") continue;
          if (seen.has(key)) yield { node: t, message: `<Tracking event="${eventOf(t) ?? ""}"> repeats the same URL for the same event: it fires twice and double-counts; remove the duplicate` };
          seen.add(key);
        }
      }
    },
  }),
  rule({
    id: "vast.impression.duplicate", group, severity: "warning", versions: ALL, spec: SPEC.impression,
    title: "no impression URL is listed twice in an ad",
    *check(ctx) {
      for (const body of [...ctx.select("Ad", "InLine"), ...ctx.select("Ad", "Wrapper")]) {
        const seen = new Set<string>();
        for (const imp of kids(body, "Impression")) {
          const url = textOf(imp);
          if (url === "") continue;
          if (seen.has(url)) yield { node: imp, message: "<Impression> repeats a URL of this ad: the impression is counted twice; remove the duplicate" };
          seen.add(url);
        }
      }
    },
  }),
  rule({
    id: "vast.tracking.quartiles.recommended", group, severity: "info", versions: ALL, spec: SPEC.tracking,
    title: "an inline Linear tracks start, the quartiles and complete",
    *check(ctx) {
      for (const l of ctx.all("Linear").filter((n) => ctx.adKind(n) === "inline")) {
        const events = new Set(kids(kid(l, "TrackingEvents"), "Tracking").map((t) => eventOf(t) ?? ""));
        const missing = ["start", "firstQuartile", "midpoint", "thirdQuartile", "complete"].filter((e) => !events.has(e));
        if (missing.length > 0) yield { node: l, message: `<Linear> does not track ${missing.join(", ")}: completion rates are measured and billed by these events; add them to <TrackingEvents>` };
      }
    },
  }),
  rule({
    id: "vast.tracking.skip.without-skipoffset", group, severity: "warning", versions: V3_UP, spec: `${SPEC.tracking}; ${SPEC.skipoffset}`,
    title: "an inline Linear that tracks skip has a skipoffset",
    *check(ctx) {
      for (const l of ctx.all("Linear").filter((n) => ctx.adKind(n) === "inline")) {
        const skip = kids(kid(l, "TrackingEvents"), "Tracking").find((t) => eventOf(t) === "skip");
        if (skip && attrOf(l, "skipoffset") === undefined) yield { node: skip, message: '<Tracking event="skip"> in a <Linear> without skipoffset: the ad is not skippable, so it never fires; add skipoffset to <Linear> or remove the tracker' };
      }
    },
  }),
  rule({
    id: "vast.tracking.companion.creative-view-only", group, severity: "warning", versions: V3_UP, spec: `${SPEC.companions} (companion tracking: creativeView)`,
    title: "a companion tracks creativeView only",
    *check(ctx) {
      for (const n of creativeTrackings(ctx)) {
        const e = eventOf(n);
        if (e && e !== "creativeView" && ctx.parent(ctx.parent(n)!)?.name.toLowerCase() === "companion") {
          yield { node: n, message: `<Tracking event="${e}"> in a <Companion>: companions fire only creativeView; track the video's events in its <Linear>` };
        }
      }
    },
  }),
  rule({
    id: "vast.viewable-impression.empty", group, severity: "warning", versions: V4_UP, spec: SPEC.viewable,
    title: "<ViewableImpression> holds Viewable, NotViewable or ViewUndetermined",
    *check(ctx) {
      for (const n of ctx.all("ViewableImpression")) {
        if (!kid(n, "Viewable") && !kid(n, "NotViewable") && !kid(n, "ViewUndetermined")) yield { node: n, message: "<ViewableImpression> is empty: add <Viewable>, <NotViewable> and <ViewUndetermined> URLs, or remove it" };
      }
    },
  }),
  rule({
    id: "vast.verification.tracking.event", group, severity: "error", versions: V41_UP, spec: SPEC.verification,
    title: "a Verification tracks verificationNotExecuted",
    *check(ctx) {
      for (const n of under(ctx, "TrackingEvents", "Tracking").filter((t) => ctx.ancestor(t, "Verification"))) {
        if (eventOf(n) !== "verificationNotExecuted") yield { node: n, message: `<Tracking event="${eventOf(n) ?? ""}"> in a <Verification>: the only event there is verificationNotExecuted; write event="verificationNotExecuted"` };
      }
    },
  }),
  rule({
    id: "vast.verification.tracking.reason", group, severity: "info", versions: V41_UP, spec: `${SPEC.verification}; ${SPEC.macros} ([REASON])`,
    title: "a verificationNotExecuted URL carries [REASON]",
    *check(ctx) {
      for (const n of under(ctx, "TrackingEvents", "Tracking").filter((t) => ctx.ancestor(t, "Verification"))) {
        if (eventOf(n) === "verificationNotExecuted" && textOf(n) !== "" && !/\[REASON\]/.test(textOf(n))) yield { node: n, message: "verificationNotExecuted URL has no [REASON]: add it so the vendor learns why its script did not run (1 not supported, 2 error, 3 policy)" };
      }
    },
  }),
];
