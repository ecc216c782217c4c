import type { CDPSession, Protocol } from "puppeteer-core";
import type { SyntheticSite } from "../synthetic-origin.ts";
import type { Gatherer } from "./gatherer.ts";

export interface InterceptionArtifact {
  /** Top-frame navigations refused (the creative tried to navigate the page away, or to a non-http(s) URL). */
  blockedNavigations: Set<string>;
}

/**
 * Request interception (CDP Fetch): the synthetic origin and the host page at page_url are answered here; everything
 * else continues to the network through the egress proxy. Top-frame navigations away from the creative are refused
 * while it renders (an auto-redirecting tag would otherwise replace itself); non-http(s) ones always. During the
 * click-through a top-frame navigation is the same-tab landing page and goes out to the network.
 */
export function gatherInterception(client: CDPSession, siteRef: { current?: SyntheticSite }, mainFrameId: () => string) {
  const artifact: InterceptionArtifact = { blockedNavigations: new Set() };
  let phase: "render" | "click" | "done" = "render";
  let topNavigations = 0;
  const waiters: Array<(url: string) => void> = [];
  client.on("Fetch.requestPaused", (e: Protocol.Fetch.RequestPausedEvent) => {
    const url = e.request.url;
    const site = siteRef.current;
    if (!site) {
      // Prepared ahead of the scan: nothing but about:blank should load yet.
      client.send("Fetch.failRequest", { requestId: e.requestId, errorReason: "Aborted" }).catch(() => {});
      return;
    }
    const isTopDoc = e.resourceType === "Document" && e.frameId === mainFrameId();
    if (isTopDoc) {
      topNavigations++;
      const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase();
      const isEntry = topNavigations === 1 || site.respond(url) !== undefined;
      if ((scheme !== "http" && scheme !== "https") || (phase === "render" && !isEntry) || phase === "done") {
        if (artifact.blockedNavigations.size < 100) artifact.blockedNavigations.add(url.slice(0, 4096));
        client.send("Fetch.failRequest", { requestId: e.requestId, errorReason: "Aborted" }).catch(() => {});
        return;
      }
      if (phase === "click") for (const w of waiters.splice(0)) w(url);
    }
    const syn = phase === "click" && isTopDoc ? undefined : site.respond(url);
    if (syn) {
      client.send("Fetch.fulfillRequest", {
        requestId: e.requestId, responseCode: syn.status,
        responseHeaders: [{ name: "Content-Type", value: syn.contentType }, { name: "Cache-Control", value: "no-store" }],
        body: Buffer.from(syn.body).toString("base64"),
      }).catch(() => {});
    } else {
      client.send("Fetch.continueRequest", { requestId: e.requestId }).catch(() => {});
    }
  });
  return {
    name: "interception",
    artifact,
    async start() {
      await client.send("Fetch.enable", { patterns: [{ urlPattern: "*", requestStage: "Request" }] });
    },
    /** From now on a top-frame navigation is the click-through's same-tab landing page. */
    allowClickNavigation() {
      phase = "click";
    },
    stop() {
      phase = "done";
      for (const w of waiters.splice(0)) w("");
    },
    /** Resolves with the URL of the next top-frame document request of the click-through ("" once stopped). */
    nextTopNavigation: () => new Promise<string>((resolve) => waiters.push(resolve)),
  } satisfies Gatherer<InterceptionArtifact> & Record<string, unknown>;
}
