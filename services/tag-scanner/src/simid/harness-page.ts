import { pageFunction, type PageValue } from "../gatherers/page-script.ts";

// Our SIMID 1.1 player harness: the page a SIMID creative is loaded into. It does what SIMID 1.1 §6.1 ("How to Handle
// Ad Loading") asks of a player — a hidden iframe, a `message` listener on its parent window, the creative's URL as
// the iframe's src (assumed cross-origin) — then the session layer (§8.4: the creative posts `createSession`, the
// player answers `resolve`), `SIMID:Player:init` with environmentData and creativeData (§4.3.7), and, once init is
// resolved, `SIMID:Player:startCreative` (§4.3.10; we have no ad media, so it is sent when init resolves, where a
// player sends it at the first media frame). Messages are JSON strings, as the IAB reference implementation sends and
// parses them; the creative's are accepted as strings or objects. Every step is bounded by our time-out (the spec
// leaves them to the player: "a reasonable timeout", "the allotted time"). `window.__cvaSimid` is a promise of what
// happened, read by the tag scanner over CDP when it settles.

/** Our time-outs, ms; the spec names none. */
export interface SimidTimeouts {
  /** From the iframe's src to createSession (creative load included). */
  sessionMs: number;
  /** From SIMID:Player:init to its resolve or reject. */
  initMs: number;
  /** From SIMID:Player:startCreative to its resolve or reject. */
  startMs: number;
  /** After startCreative's answer, how long the creative's later messages (fatalError, reportTracking …) are watched. */
  watchMs: number;
}

export const DEFAULT_SIMID_TIMEOUTS: SimidTimeouts = { sessionMs: 5_000, initMs: 3_000, startMs: 3_000, watchMs: 1_500 };

export interface HarnessConfig {
  url: string;
  adParameters: string;
  clickThruUrl: string;
  durationSeconds: number;
  timeouts: SimidTimeouts;
  /** Media and creative size the harness declares (the iframe's size). */
  width: number;
  height: number;
}

/** What the page's promise settles to (fields as in VastSimidRun). */
export interface HarnessResult {
  sessionCreated: boolean;
  sessionMs: number;
  initResolved: boolean;
  initRejected: boolean;
  initMs: number;
  startResolved: boolean;
  startRejected: boolean;
  startMs: number;
  errors: string[];
  messages: Array<{ type: string; atMs: number; errorCode: number; detail: string }>;
}

const HARNESS_JS = pageFunction<[HarnessConfig & PageValue]>(new URL("./page/simid-harness.js", import.meta.url), "simidHarness");

/**
 * The harness page, its configuration inlined as a JSON literal. `</` and `<!--` (which only occur inside the JSON's
 * strings: the creative's URL and AdParameters) are written `<\/` and `<\!--`, the same strings, so nothing a VAST
 * carries can close the script element.
 */
export function harnessHtml(cfg: HarnessConfig): string {
  const script = HARNESS_JS(cfg as HarnessConfig & PageValue).replace(/<\//g, "<\\/").replace(/<!--/g, "<\\!--");
  return `<!doctype html><html><head><meta charset="utf-8"><title>CVA SIMID player</title></head><body style="margin:0">
<script>${script}</script></body></html>`;
}
