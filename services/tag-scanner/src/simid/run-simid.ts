import { create } from "@bufbuild/protobuf";
import { VastSimidRunSchema, type SimidInput, type VastSimidRun } from "@cva/contracts";
import type { EgressProxy, OutboundPolicy } from "@cva/platform";
import type { BrowserContext, Protocol } from "puppeteer-core";
import { openSidePage } from "../side-page.ts";
import type { BrowserPool } from "../browser-pool.ts";
import { bounded, sleep } from "../util.ts";
import { DEFAULT_SIMID_TIMEOUTS, harnessHtml, type HarnessResult, type SimidTimeouts } from "./harness-page.ts";

// One SIMID creative run behind our player harness (harness-page.ts) on a browser of the pool: its own incognito
// context and egress proxy (the creative and everything it loads go through the outbound policy, as a tag scan's do),
// the harness page served by request interception at a name that never resolves, the creative in its iframe. What the
// page's promise settles to is the report; a run that cannot be made or finish says why in `error`.

/** The harness's origin: answered by interception, never requested (`.invalid` cannot resolve, RFC 6761). http, so an
 * http creative is not blocked as mixed content before it can be judged (the linter names http URLs already). */
export const HARNESS_URL = "http://simid-player.cva.invalid/";
const ADPARAMETERS_MAX = 64 * 1024;
/** Beyond the harness's own time-outs: page setup and teardown. */
const SETUP_MS = 5_000;

export interface SimidRunDeps {
  pool: BrowserPool;
  policy: OutboundPolicy;
  startProxy: (policy: OutboundPolicy, listenOn?: () => Promise<import("node:net").Server>) => Promise<EgressProxy>;
  timeouts?: Partial<SimidTimeouts>;
}

/** The longest a run takes with these time-outs (session, init, start, watch, setup). */
export function simidRunBudgetMs(t: SimidTimeouts): number {
  return t.sessionMs + t.initMs + t.startMs + t.watchMs + SETUP_MS;
}

export async function runSimid(deps: SimidRunDeps, input: SimidInput, opts: { deadline: number; signal?: AbortSignal }): Promise<VastSimidRun> {
  const timeouts = { ...DEFAULT_SIMID_TIMEOUTS, ...deps.timeouts };
  const out = create(VastSimidRunSchema, {
    url: input.url, sessionMs: -1, initMs: -1, startMs: -1,
    sessionTimeoutMs: timeouts.sessionMs, initTimeoutMs: timeouts.initMs, startTimeoutMs: timeouts.startMs,
  });
  let url: URL;
  try {
    url = new URL(input.url);
  } catch {
    out.error = "not run: the InteractiveCreativeFile is not a URL";
    return out;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    out.error = `not run: the InteractiveCreativeFile is not an http(s) URL (${url.protocol})`;
    return out;
  }
  const left = () => opts.deadline - Date.now();
  if (left() < timeouts.sessionMs) {
    out.error = "not run: too little of the scan's time was left";
    return out;
  }
  const lease = await deps.pool.acquire(opts.signal);
  let broken = false;
  let proxy: EgressProxy | undefined;
  let context: BrowserContext | undefined;
  try {
    const side = await openSidePage(lease.browser, () => deps.startProxy(deps.policy, lease.proxyListener), Math.max(0, left()), "a SIMID run");
    ({ proxy, context } = side);
    const { client } = side;
    const html = harnessHtml({
      url: url.href,
      adParameters: input.adParameters.slice(0, ADPARAMETERS_MAX),
      clickThruUrl: input.clickThruUrl,
      durationSeconds: Number.isFinite(input.durationSeconds) ? input.durationSeconds : 0,
      timeouts,
      width: 640,
      height: 360,
    });
    // Only the harness document is intercepted; the creative and what it loads go out through the egress proxy.
    client.on("Fetch.requestPaused", (e: Protocol.Fetch.RequestPausedEvent) => {
      const ours = e.request.url === HARNESS_URL;
      void client.send("Fetch.fulfillRequest", {
        requestId: e.requestId,
        responseCode: ours ? 200 : 404,
        responseHeaders: [{ name: "content-type", value: ours ? "text/html; charset=utf-8" : "text/plain" }, { name: "cache-control", value: "no-store" }],
        body: Buffer.from(ours ? html : "").toString("base64"),
      }).catch(() => {});
    });
    await client.send("Fetch.enable", { patterns: [{ urlPattern: `${HARNESS_URL}*`, requestStage: "Request" }] });
    await bounded(client.send("Page.navigate", { url: HARNESS_URL }), Math.min(SETUP_MS, Math.max(0, left())), undefined);
    // The page's promise settles by the harness's own time-outs; ours is a backstop (a hung renderer). Page.navigate
    // may return before the harness document has run its script (or while about:blank is still the document, whose
    // context the navigation destroys): until the promise exists in the harness document, look again.
    const until = Date.now() + Math.max(0, Math.min(left(), simidRunBudgetMs(timeouts)));
    const expression = `location.href === ${JSON.stringify(HARNESS_URL)} && window.__cvaSimid ? window.__cvaSimid : null`;
    let value: HarnessResult | undefined;
    while (Date.now() < until) {
      const res = await bounded(client.send("Runtime.evaluate", { expression, awaitPromise: true, returnByValue: true }), until - Date.now(), undefined);
      const v = res?.result?.value as HarnessResult | null | undefined;
      if (v && typeof v === "object") {
        value = v;
        break;
      }
      await sleep(50);
    }
    if (!value) {
      out.error = "the run did not finish within the scan's time";
      return out;
    }
    out.run = true;
    out.sessionCreated = value.sessionCreated === true;
    out.sessionMs = int(value.sessionMs);
    out.initResolved = value.initResolved === true;
    out.initRejected = value.initRejected === true;
    out.initMs = int(value.initMs);
    out.startResolved = value.startResolved === true;
    out.startRejected = value.startRejected === true;
    out.startMs = int(value.startMs);
    out.errors = (Array.isArray(value.errors) ? value.errors : []).map((e) => String(e).slice(0, 500)).slice(0, 50);
    out.messages = (Array.isArray(value.messages) ? value.messages : []).slice(0, 100).map((m) => ({
      $typeName: "cva.report.v1.VastSimidMessage" as const,
      type: String(m.type).slice(0, 80), atMs: int(m.atMs), errorCode: int(m.errorCode), detail: String(m.detail ?? "").slice(0, 300),
    }));
    // A creative the proxy refused never loads: say why beside the time-out.
    const refused = proxy.blocked.filter((b) => b.host === url.hostname);
    if (refused.length > 0 && !out.sessionCreated) out.errors.push(`the creative was not loaded: refused by the outbound policy: ${refused[0]!.reason}`);
    return out;
  } catch (err) {
    if (opts.signal?.aborted) throw err;
    broken = !lease.browser.connected;
    out.error = "the run failed: the browser did not answer";
    return out;
  } finally {
    await bounded(context?.close().catch(() => {}) ?? Promise.resolve(), 10_000, undefined);
    await proxy?.close().catch(() => {});
    lease.release(broken);
  }
}

function int(v: unknown): number {
  const n = typeof v === "number" && Number.isFinite(v) ? Math.round(v) : -1;
  return Math.max(-1, Math.min(n, 2_147_483_647));
}
