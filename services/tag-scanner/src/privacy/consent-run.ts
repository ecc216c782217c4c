import { create } from "@bufbuild/protobuf";
import { ScanJobSchema, type ScanJob } from "@cva/contracts";
import type { EgressProxy, OutboundPolicy } from "@cva/platform";
import { randomBytes } from "node:crypto";
import type { Browser, Protocol } from "puppeteer-core";
import type { DeviceProfile } from "../config.ts";
import { gatherInterception } from "../gatherers/interception.ts";
import { gatherNetwork } from "../gatherers/network.ts";
import { createProbeWorlds } from "../gatherers/probe-world.ts";
import { readStorage } from "../gatherers/storage.ts";
import { MRAID_ENV_JS } from "../mraid-host.ts";
import { tabProfile } from "../prepared-page.ts";
import { buildSyntheticSite, type SyntheticSite } from "../synthetic-origin.ts";
import { bounded, sleep } from "../util.ts";
import type { ConsentCall, ConsentRunArtifact } from "./artifact.ts";
import { consentPageSource } from "./consent-page.ts";
import { buildConsentPage, closeConsentPage, type ConsentPage } from "./consent-pages.ts";
import { fillMacros, type ConsentState } from "./consent-states.ts";


const MAX_CALL_KINDS = 50;
const MAX_PAYLOAD = 500;
/** After the watch, requests already on their way may finish (a pixel fired at the end). */
const DRAIN_MS = 1_000;
/** The network must have been idle this long after load before a run ends. */
const QUIET_MS = 500;

/** The job with its creative's consent macros filled as an ad server would for `state` (tag markup, bundle HTML/JS). */
export function jobForState(job: ScanJob, state: ConsentState): ScanJob {
  if (job.input.case !== "tag") return job;
  const input = job.input.value;
  const creative = input.creative;
  if (creative.case === "html") {
    return create(ScanJobSchema, { ...job, input: { case: "tag", value: { ...input, creative: { case: "html", value: fillMacros(creative.value, state) } } } });
  }
  if (creative.case === "bundle") {
    const dec = new TextDecoder();
    const enc = new TextEncoder();
    const files = creative.value.files.map((f) => {
      if (!/\.(html?|m?js)$/i.test(f.path) || f.data.byteLength > 4 * 1024 * 1024) return f;
      const text = dec.decode(f.data);
      const filled = fillMacros(text, state);
      return filled === text ? f : { ...f, data: enc.encode(filled) };
    });
    return create(ScanJobSchema, { ...job, input: { case: "tag", value: { ...input, creative: { case: "bundle", value: { ...creative.value, files } } } } });
  }
  return job;
}

/**
 * One consent state's run: its own incognito context and egress proxy on the scan's browser (nothing shared with the
 * full run: cookies, storage, cache), the CMP of the state in the host page (consent-page.ts), its headers on every
 * request, the creative's macros filled for the state; the creative loads and is watched for `watchMs` (the full run's
 * render window), then requests on their way get a second, then cookies and localStorage are read. Everything is
 * bounded by `deadline`; a failure ends the run with what it saw and its error.
 */
export async function runConsentState(opts: {
  browser: Browser;
  startProxy: (policy: OutboundPolicy) => Promise<EgressProxy>;
  policy: OutboundPolicy;
  job: ScanJob;
  profile: DeviceProfile;
  state: ConsentState;
  watchMs: number;
  deadline: number;
  /** A page built ahead for this run (consent-pages.ts); undefined (or resolving to undefined) = build one now. */
  prepared?: Promise<ConsentPage | undefined>;
}): Promise<ConsentRunArtifact> {
  const { state } = opts;
  const site = buildSyntheticSite(jobForState(opts.job, state));
  const out: ConsentRunArtifact = { state: state.name, site, requests: [], storage: { cookies: [], localStorage: [] }, calls: [], watchedMs: 0 };
  const left = () => opts.deadline - Date.now();
  let built: ConsentPage | undefined;
  try {
    // A page built ahead (consent-pages.ts), else one built now: a renderer start on this run's critical path.
    // A page still being built ahead is waited for within the run's time; one not ready by then is built now.
    const ahead = opts.prepared ? await bounded(opts.prepared, Math.max(0, left()), undefined) : undefined;
    // Given up on: closed whenever it arrives.
    if (opts.prepared && !ahead) void opts.prepared.then((p) => { if (p) closeConsentPage(p); });
    built = ahead ?? await buildConsentPage(opts.browser, () => opts.startProxy(opts.policy), left());
    const { client } = built;
    const siteRef: { current?: SyntheticSite } = { current: site };
    let mainFrameId = "";
    const net = gatherNetwork(client, { isSynthetic: (u) => site.respond(u) !== undefined });
    const interception = gatherInterception(client, siteRef, () => mainFrameId);
    const worlds = createProbeWorlds(client);
    const binding = `__cva_${randomBytes(6).toString("hex")}`;
    const token = randomBytes(9).toString("hex");
    const calls = new Map<string, ConsentCall>();
    // The same arrays the gatherers fill: a run that fails later still reports what it saw until then.
    out.requests = net.artifact.requests;
    out.calls = [];
    client.on("Runtime.bindingCalled", (e: Protocol.Runtime.BindingCalledEvent) => {
      if (e.name !== binding || e.payload.length > MAX_PAYLOAD) return;
      let m: { t?: unknown; api?: unknown; command?: unknown; post?: unknown };
      try {
        m = JSON.parse(e.payload) as typeof m;
      } catch {
        return;
      }
      if (!m || m.t !== token || (m.api !== "__tcfapi" && m.api !== "__gpp" && m.api !== "__uspapi")) return;
      const command = typeof m.command === "string" ? m.command.slice(0, 64) : "";
      const post = m.post === true;
      const key = `${m.api}\u0000${command}\u0000${post}`;
      const c = calls.get(key);
      if (c) c.count++;
      else if (calls.size < MAX_CALL_KINDS) {
        const call = { api: m.api, command, post, count: 1 };
        calls.set(key, call);
        out.calls.push(call);
      }
    });
    mainFrameId = (await client.send("Page.getFrameTree")).frameTree.frame.id;
    const t = tabProfile(opts.profile);
    await Promise.all([
      client.send("Page.enable"),
      client.send("Runtime.enable"),
      // No detailed stack traces for the creative's throws (as on the scan tab: gatherers/page-events.ts).
      client.send("Runtime.setMaxCallStackSizeToCapture", { size: 0 }).catch(() => {}),
      net.start(),
      interception.start(),
      client.send("Runtime.addBinding", { name: binding }),
      client.send("Page.addScriptToEvaluateOnNewDocument", { source: consentPageSource(binding, token, state.cmp) }),
      site.inApp ? client.send("Page.addScriptToEvaluateOnNewDocument", { source: MRAID_ENV_JS }) : undefined,
      client.send("Emulation.setDeviceMetricsOverride", { width: t.width, height: t.height, deviceScaleFactor: t.deviceScaleFactor, mobile: t.isMobile }),
      client.send("Emulation.setTouchEmulationEnabled", { enabled: t.hasTouch, maxTouchPoints: t.hasTouch ? 5 : 1 }),
      client.send("Emulation.setUserAgentOverride", { userAgent: t.userAgent, acceptLanguage: t.acceptLanguage, platform: t.platform }),
      client.send("Network.setExtraHTTPHeaders", { headers: { "Accept-Language": opts.profile.language, ...state.headers } }),
    ]);
    let loaded = false;
    client.on("Page.loadEventFired", () => { loaded = true; });
    const started = Date.now();
    await bounded(client.send("Page.navigate", { url: site.entryUrl }), Math.max(0, left()), undefined);
    await sleep(Math.max(0, Math.min(opts.watchMs - (Date.now() - started), left())));
    // Then on evidence, not time: until the page has loaded (its frames and their scripts) and the network has been
    // quiet for QUIET_MS — a loaded machine can take longer than the full run's render to get there — within the
    // deadline; a request still on its way then gets at most DRAIN_MS more.
    let quietSince = Date.now();
    while (left() > 0) {
      if (net.busy()) quietSince = Date.now();
      else if (loaded && Date.now() - quietSince >= QUIET_MS) break;
      await sleep(50);
    }
    const drainEnd = Math.min(Date.now() + DRAIN_MS, opts.deadline);
    while (Date.now() < drainEnd && net.inflight() > 0) await sleep(50);
    out.watchedMs = Date.now() - started;
    interception.stop();
    out.storage = await readStorage(client, worlds, Math.max(1_000, Math.min(8_000, left() + 3_000)));
    await bounded(net.stop(), 500, undefined);
    if (Date.now() > opts.deadline) out.error = "cut short by the scan's deadline";
  } catch (err) {
    out.error = `the ${state.name} run failed: ${String(err).slice(0, 300)}`;
  } finally {
    // Closed in the background: the report does not wait for a context to close (a wedged one takes its 10 s).
    if (built) closeConsentPage(built);
  }
  // Copies: the gatherers' own lists may still grow until the context is gone.
  return { ...out, requests: [...out.requests], calls: out.calls.map((c) => ({ ...c })) };
}
