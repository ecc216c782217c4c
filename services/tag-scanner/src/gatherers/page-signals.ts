import { randomBytes } from "node:crypto";
import type { CDPSession, Protocol } from "puppeteer-core";
import type { Gatherer } from "./gatherer.ts";
import { instrumentSource, pingEventOf, type PageSignal } from "./instrument.ts";
import { createRealmTracker } from "./render-watch.ts";

export interface PageSignalsArtifact {
  /** first-paint / first-contentful-paint of any frame, epoch ms. */
  paints: number[];
  usesDocumentWrite: boolean;
  videoPlayed: boolean;
}

const MAX_PAYLOAD = 2_000;

/**
 * The channel from the creative's own world (instrument.ts) to Node: a CDP binding with a random name per scan,
 * captured and hidden by the instrumentation before the creative runs. Paints, document.write and video playback
 * count while the creative renders; motion reports (timers, rAF) also during the click-through, whose end depends
 * on the timers the click's handlers scheduled. Every message is size-bounded and validated.
 */
export function gatherPageSignals(client: CDPSession) {
  const artifact: PageSignalsArtifact = { paints: [], usesDocumentWrite: false, videoPlayed: false };
  const realms = createRealmTracker();
  const binding = `__cva_${randomBytes(6).toString("hex")}`;
  let phase: "render" | "click" | "done" = "render";
  client.on("Runtime.bindingCalled", (e: Protocol.Runtime.BindingCalledEvent) => {
    if (e.name !== binding || phase === "done" || e.payload.length > MAX_PAYLOAD) return;
    let msg: PageSignal;
    try {
      msg = JSON.parse(e.payload) as PageSignal;
    } catch {
      return;
    }
    if (!msg || typeof msg !== "object") return;
    if (msg.t === "motion") realms.note(msg);
    else if (phase !== "render") return;
    else if (msg.t === "dw") artifact.usesDocumentWrite = true;
    else if (msg.t === "video") artifact.videoPlayed = true;
    else if (msg.t === "paint" && Number.isFinite(msg.at) && artifact.paints.length < 100) artifact.paints.push(msg.at);
  });
  return {
    name: "page-signals",
    artifact,
    realms,
    /** The event that asks every realm for a report now (see instrument.ts). */
    pingEvent: pingEventOf(binding),
    async start() {
      await Promise.all([
        client.send("Runtime.addBinding", { name: binding }),
        client.send("Page.addScriptToEvaluateOnNewDocument", { source: instrumentSource(binding) }),
      ]);
    },
    /** The creative's phase is over: only motion reports count from now on (the click-through's timers). */
    endCreative() {
      phase = "click";
    },
    stop() {
      phase = "done";
    },
  } satisfies Gatherer<PageSignalsArtifact> & Record<string, unknown>;
}
