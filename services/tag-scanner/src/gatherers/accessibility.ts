import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import type { CDPSession, Protocol } from "puppeteer-core";
import { bounded } from "../util.ts";
import { pageFunction } from "./page-script.ts";
import { axeSubset } from "./axe-subset.ts";
import { asciiSource } from "./ascii-source.ts";
import type { ProbeWorlds } from "./probe-world.ts";

/** What page/a11y-probe.js returns for one frame. */
export interface FrameA11yProbe {
  /** Visible controls named pause or stop, centre in top-viewport CSS px. */
  controls: Array<{ name: string; x: number; y: number }>;
  /** Visible canvases of at least 400 CSS px². */
  canvases: number;
  /** Visible images (img, input image, CSS background image) of at least 40x12 CSS px. */
  images: number;
}

export interface AxeViolation { ruleId: string; impact: string; count: number; targets: string[]; wcag: string[]; help: string }

export interface DocumentChecks {
  violations: AxeViolation[];
  rulesChecked: string[];
  /** Why the checks did not run (empty when they did in at least the creative's frames). */
  error: string;
  /** Frames checked / frames that did not answer in time or failed. */
  frames: number;
  framesMissed: number;
  ms: number;
}

export type PauseOutcome = "works" | "does_not_work" | "not_verified";

export interface PauseArtifact {
  /** The control found (its accessible name), none when empty. */
  control: string;
  /** What clicking it did (absent when it was not tried: no control, or no motion left to stop). */
  outcome?: PauseOutcome;
  /** Pixel changes seen before and after the click (each over its observation window). */
  changesBefore?: number;
  changesAfter?: number;
}

export interface A11yArtifact {
  document?: DocumentChecks;
  pause?: PauseArtifact;
  canvases: number;
  images: number;
}

/**
 * The axe-core rules that matter for ads (issue 25): text alternatives of images, the exit's accessible name, text
 * contrast, the document language. Run in every frame of the creative, each frame alone (axe's own iframe walk needs
 * axe loaded in the creative's world).
 */
export const AXE_RULES = [
  "image-alt", "input-image-alt", "role-img-alt", "area-alt", "svg-img-alt",
  "link-name", "button-name",
  "color-contrast",
  "html-has-lang", "html-lang-valid",
] as const;
/** Rules about the document element: not run on our own wrapper page (the tag's language is its publisher's page's). */
const DOCUMENT_RULES = new Set(["html-has-lang", "html-lang-valid"]);
const MAX_FRAMES = 10;
const MAX_TARGETS = 20;

let axeSource: string | undefined;
/**
 * axe-core's browser bundle (MPL-2.0) reduced to AXE_RULES (axe-subset.ts), derived once per process from the pinned
 * package; the full bundle if its shape is not the one the reduction knows. Sent as ASCII (ascii-source.ts: 8-bit over
 * CDP and in V8 instead of UTF-16 for its 17 non-ASCII characters).
 */
function axeScript(): string {
  if (axeSource === undefined) {
    const full = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
    let src: string;
    try {
      src = axeSubset(full, AXE_RULES);
    } catch {
      src = full;
    }
    try {
      axeSource = asciiSource(src);
    } catch {
      axeSource = src;
    }
  }
  return axeSource;
}

/** The slot page's body holds nothing but its one iframe (read in the isolated world). */
const SLOT_ONLY = `(() => { const b = document.body; return !!b && b.childElementCount === 1 && b.firstElementChild.tagName === "IFRAME" && !(b.textContent || "").trim(); })()`;

const PROBE = pageFunction<[max: number]>(new URL("./page/a11y-probe.js", import.meta.url), "a11yProbe")(5);

/**
 * axe in the frame's world: loaded once per world (a world lives as long as its document). The accessibility phase
 * starts it for the top frame beside the steps before the checks.
 */
export async function loadAxe(worlds: ProbeWorlds, frameId: string, ms: number, opts: { fresh?: boolean } = {}): Promise<boolean> {
  // `fresh`: the caller knows no axe was loaded into this frame's world yet (the accessibility phase's first load):
  // the question would be one more round trip to the renderer, which is busy (issue 22).
  return (!opts.fresh && (await worlds.evaluate<boolean>(frameId, `typeof axe === "object"`, ms)))
    || (await worlds.evaluate<boolean>(frameId, axeExpression(), ms)) === true;
}

let axeExpr: string | undefined;
/** The bundle and the question whether it defined `axe`, built once per process (650 KB not concatenated per load). */
function axeExpression(): string {
  return (axeExpr ??= `${axeScript()}\n;typeof axe === "object"`);
}

/** "wcag111" → "1.1.1"; axe tags that are not success criteria are dropped. */
export function wcagCriteria(tags: string[]): string[] {
  return [...new Set(tags.flatMap((t) => {
    const m = /^wcag(\d)(\d)(\d+)$/.exec(t);
    return m ? [`${m[1]}.${m[2]}.${m[3]}`] : [];
  }))];
}

interface AxeNodeResult { target: unknown[] }
interface AxeRuleResult { id: string; impact?: string | null; tags: string[]; help: string; nodes: AxeNodeResult[] }

/**
 * axe-core in the isolated world of every frame (the creative cannot replace axe's DOM reads, as it cannot the layout
 * probe's). `ownTop`: the top document is our wrapper page (a tag placed inline, a bundle's slot page), whose own
 * `<html>` is not the creative's.
 */
export async function runDocumentChecks(worlds: ProbeWorlds, opts: {
  ownTop: boolean;
  /**
   * The top document is a framed bundle's slot page (synthetic-origin.ts), ours alone: it is checked only if its body
   * holds more than the slot's iframe (the creative, same origin, wrote into it). axe costs a load and a run per
   * frame, and a zip scan is the tag path plus this one frame.
   */
  slotTop?: boolean;
  stepMs: number;
  budgetMs: number;
}): Promise<DocumentChecks> {
  const t0 = Date.now();
  const deadline = t0 + opts.budgetMs;
  const frames = (await worlds.frames()).slice(0, MAX_FRAMES);
  const byRule = new Map<string, AxeViolation>();
  let checked = 0, missed = 0;
  for (const [i, frame] of frames.entries()) {
    const left = deadline - Date.now();
    if (left < 200) { missed += frames.length - i; break; }
    const ms = Math.min(opts.stepMs, left);
    if (i === 0 && opts.slotTop && (await worlds.evaluate<boolean>(frame.id, SLOT_ONLY, ms)) === true) continue;
    const rules = AXE_RULES.filter((r) => !(i === 0 && opts.ownTop && DOCUMENT_RULES.has(r)));
    // Loaded once per world. The run asks whether axe is there itself (null when not): where the phase loaded it
    // already (the top frame), that is one round trip to the renderer instead of two.
    const run = `typeof axe !== "object" ? null : axe.run(document, ${JSON.stringify({ runOnly: { type: "rule", values: rules }, resultTypes: ["violations"], iframes: false, elementRef: false, selectors: true, performanceTimer: false })})
      .then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, tags: v.tags, help: v.help, nodes: v.nodes.slice(0, ${MAX_TARGETS}).map((n) => ({ target: n.target })), count: v.nodes.length })))`;
    type Found = Array<AxeRuleResult & { count: number }> | null;
    let result = await worlds.evaluate<Found>(frame.id, run, Math.max(200, deadline - Date.now()), true);
    if (result === null) {
      const loaded = await loadAxe(worlds, frame.id, Math.min(opts.stepMs, Math.max(200, deadline - Date.now())), { fresh: true });
      if (!loaded) { missed++; continue; }
      result = await worlds.evaluate<Found>(frame.id, run, Math.max(200, deadline - Date.now()), true);
    }
    if (!result) { missed++; continue; }
    checked++;
    const prefix = i === 0 ? "" : `frame ${truncate(frame.url, 120)} >> `;
    for (const v of result.slice(0, 50)) {
      const prev = byRule.get(v.id) ?? { ruleId: String(v.id), impact: String(v.impact ?? ""), count: 0, targets: [], wcag: wcagCriteria(v.tags ?? []), help: truncate(String(v.help ?? ""), 200) };
      prev.count += Number(v.count) || 0;
      for (const n of v.nodes ?? []) if (prev.targets.length < MAX_TARGETS) prev.targets.push(prefix + truncate((n.target ?? []).map(String).join(" >> "), 300));
      byRule.set(v.id, prev);
    }
  }
  return {
    violations: [...byRule.values()].filter((v) => (AXE_RULES as readonly string[]).includes(v.ruleId)),
    rulesChecked: checked > 0 ? [...AXE_RULES] : [],
    error: checked > 0 ? "" : frames.length === 0 ? "no frame to check" : "no frame answered the document checks in time",
    frames: checked, framesMissed: missed, ms: Date.now() - t0,
  };
}

function truncate(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n)}…` : s;
}

/** Every frame's probe: pause/stop controls, painted canvases, images that may carry text. */
export async function probeFrames(worlds: ProbeWorlds, ms: number): Promise<{ controls: FrameA11yProbe["controls"]; canvases: number; images: number }> {
  const out = { controls: [] as FrameA11yProbe["controls"], canvases: 0, images: 0 };
  const deadline = Date.now() + ms;
  for (const frame of (await worlds.frames()).slice(0, MAX_FRAMES)) {
    const left = deadline - Date.now();
    if (left < 100) break;
    const p = await worlds.evaluate<FrameA11yProbe>(frame.id, PROBE, Math.min(2_000, left));
    if (!p) continue;
    out.controls.push(...(p.controls ?? []).slice(0, 5));
    out.canvases += Number(p.canvases) || 0;
    out.images += Number(p.images) || 0;
  }
  return out;
}

/**
 * Counts pixel changes over `ms` through a screencast of its own (the render's has stopped): Chromium sends a frame
 * only when something was drawn, identical pixels encode to identical bytes. The first frame (the current picture)
 * is no change.
 */
export async function countChanges(client: CDPSession, ms: number, during?: () => Promise<void>): Promise<{ before: number; after: number }> {
  let prev: string | undefined;
  let changes = 0;
  const onFrame = (e: Protocol.Page.ScreencastFrameEvent) => {
    client.send("Page.screencastFrameAck", { sessionId: e.sessionId }).catch(() => {});
    if (prev !== undefined && e.data !== prev) changes++;
    prev = e.data;
  };
  client.on("Page.screencastFrame", onFrame);
  try {
    await client.send("Page.startScreencast", { format: "jpeg", quality: 50, maxWidth: 480, maxHeight: 480, everyNthFrame: 1 });
    await sleep(ms);
    const before = changes;
    if (!during) return { before, after: 0 };
    await during();
    // The click's own redraw (a hover style, the control turning into "play") settles first.
    await sleep(800);
    changes = 0;
    await sleep(ms);
    return { before, after: changes };
  } finally {
    client.off("Page.screencastFrame", onFrame);
    await client.send("Page.stopScreencast").catch(() => {});
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * WCAG 2.2.2: the first visible control named pause or stop is clicked (a trusted click at its centre) while the
 * creative moves; it works when the pixels then stay still for the observation window. Motion that had ended before
 * (a finite animation over 5 s) cannot be tried: the control is reported as found, not verified.
 */
export async function tryPauseControl(client: CDPSession, control: { name: string; x: number; y: number } | undefined, opts: { stillMoving: boolean; observeMs: number }): Promise<PauseArtifact> {
  if (!control) return { control: "" };
  if (!opts.stillMoving) return { control: control.name, outcome: "not_verified" };
  const click = async () => {
    const at = { x: Math.round(control.x), y: Math.round(control.y) };
    await bounded(client.send("Input.dispatchMouseEvent", { type: "mouseMoved", ...at }), 2_000, undefined);
    await bounded(client.send("Input.dispatchMouseEvent", { type: "mousePressed", ...at, button: "left", clickCount: 1 }), 2_000, undefined);
    await bounded(client.send("Input.dispatchMouseEvent", { type: "mouseReleased", ...at, button: "left", clickCount: 1 }), 2_000, undefined);
  };
  const seen = await bounded(countChanges(client, opts.observeMs, click), opts.observeMs * 2 + 6_000, undefined);
  if (!seen) return { control: control.name, outcome: "not_verified" };
  // Not moving before the click (a loop holding a frame): nothing to judge the click by.
  if (seen.before === 0) return { control: control.name, outcome: "not_verified", changesBefore: 0, changesAfter: seen.after };
  return { control: control.name, outcome: seen.after === 0 ? "works" : "does_not_work", changesBefore: seen.before, changesAfter: seen.after };
}
