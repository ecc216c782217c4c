import type { CDPSession, Protocol } from "puppeteer-core";
import { truncate } from "../util.ts";
import type { Gatherer } from "./gatherer.ts";

/** What the creative's page said and did while it rendered: console, uncaught errors, dialogs, frames, load events. */
export interface PageEventsArtifact {
  consoleErrors: string[];
  consoleWarnings: string[];
  dialogs: Array<{ type: string; message: string }>;
  /** Frames attached below the top document (iframes added to the DOM). */
  frames: number;
  dclTs?: number;
  loadTs?: number;
  /** DOMContentLoaded of every frame's documents, by URL (CDP lifecycle events, monotonic seconds), first wins. */
  frameDcl: Map<string, number>;
  /** Local Date.now() of the load event. */
  loadLocal: number;
  crashed: boolean;
}

const MAX_CONSOLE = 200;
const MAX_DIALOGS = 50;

function remoteText(o: Protocol.Runtime.RemoteObject): string {
  if (o.type === "string") return String(o.value);
  if (o.type === "undefined") return "undefined";
  if (o.value !== undefined) return typeof o.value === "object" ? JSON.stringify(o.value) : String(o.value);
  return o.description ?? o.unserializableValue ?? o.type;
}

/**
 * Gatherer of the page's own events. Only the creative's phase counts: collection ends with it (`endCreative`), before
 * the click-through, so the landing page's console and dialogs are not the creative's. Dialogs are always dismissed
 * (a beforeunload accepted, so the page can always be closed).
 */
export function gatherPageEvents(client: CDPSession) {
  const artifact: PageEventsArtifact = { consoleErrors: [], consoleWarnings: [], dialogs: [], frames: 0, frameDcl: new Map(), loadLocal: 0, crashed: false };
  const frameUrls = new Map<string, string>();
  let active = true;
  const error = (text: string) => {
    if (active && artifact.consoleErrors.length < MAX_CONSOLE) artifact.consoleErrors.push(truncate(text));
  };
  client.on("Page.frameAttached", (e: Protocol.Page.FrameAttachedEvent) => {
    if (active && e.parentFrameId) artifact.frames++;
  });
  client.on("Page.frameNavigated", (e: Protocol.Page.FrameNavigatedEvent) => {
    if (frameUrls.size < 200) frameUrls.set(e.frame.id, e.frame.url);
  });
  client.on("Page.lifecycleEvent", (e: Protocol.Page.LifecycleEventEvent) => {
    const url = frameUrls.get(e.frameId);
    if (!active || e.name !== "DOMContentLoaded" || !url || artifact.frameDcl.has(url) || artifact.frameDcl.size >= 200) return;
    artifact.frameDcl.set(url, e.timestamp);
  });
  client.on("Page.domContentEventFired", (e: Protocol.Page.DomContentEventFiredEvent) => {
    if (active) artifact.dclTs ??= e.timestamp;
  });
  client.on("Page.loadEventFired", (e: Protocol.Page.LoadEventFiredEvent) => {
    if (active && artifact.loadTs === undefined) {
      artifact.loadTs = e.timestamp;
      artifact.loadLocal = Date.now();
    }
  });
  client.on("Page.javascriptDialogOpening", (e: Protocol.Page.JavascriptDialogOpeningEvent) => {
    if (active && artifact.dialogs.length < MAX_DIALOGS) artifact.dialogs.push({ type: e.type, message: truncate(e.message, 1000) });
    client.send("Page.handleJavaScriptDialog", { accept: e.type === "beforeunload" }).catch(() => {});
  });
  client.on("Runtime.consoleAPICalled", (e: Protocol.Runtime.ConsoleAPICalledEvent) => {
    if (!active || (e.type !== "error" && e.type !== "warning" && e.type !== "assert")) return;
    const text = truncate(e.args.slice(0, 20).map(remoteText).join(" "));
    const list = e.type === "warning" ? artifact.consoleWarnings : artifact.consoleErrors;
    if (list.length < MAX_CONSOLE) list.push(text);
  });
  client.on("Runtime.exceptionThrown", (e: Protocol.Runtime.ExceptionThrownEvent) => {
    const d = e.exceptionDetails;
    const text = d.exception?.description ?? (d.exception ? remoteText(d.exception) : d.text);
    error(text.startsWith("Uncaught") ? text : `Uncaught ${text}`);
  });
  client.on("Inspector.targetCrashed", () => {
    artifact.crashed = true;
    error("The creative's renderer crashed (out of memory or killed)");
  });
  return {
    name: "page-events",
    artifact,
    async start() {
      await Promise.all([
        client.send("Page.enable"), client.send("Runtime.enable"), client.send("Inspector.enable").catch(() => {}),
        // After Runtime.enable (same session, in order). With Runtime on, V8 captures a detailed stack trace, 200
        // frames with their source positions, for every Error made and every exception thrown, caught ones included;
        // V8 compiles without positions, so each frame's function is parsed again for them. axe-core's load throws
        // twice (two feature tests of its polyfills) under its 570 KB bundle's frames, so it was parsed twice more per
        // frame (the renderer's CPU for the load 104–112 → 67–69 ms without, fresh contexts, no debugger on). No field
        // reads these traces (errors are reported by their text); a user's Chrome, with no DevTools open, does not
        // capture them either, so the creative's own throws cost here what they cost there.
        client.send("Runtime.setMaxCallStackSizeToCapture", { size: 0 }).catch(() => {}),
        // Per-frame DOMContentLoaded: a framed bundle's creative is a child frame of our slot page.
        client.send("Page.setLifecycleEventsEnabled", { enabled: true }),
      ]);
    },
    endCreative() {
      active = false;
    },
    stop() {
      active = false;
    },
  } satisfies Gatherer<PageEventsArtifact> & Record<string, unknown>;
}
