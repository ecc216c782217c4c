import { createMemoryArtifactSink, createOutboundPolicy } from "@cva/platform";
import { tagTests } from "@cva/spec-sets";
import { TCString } from "@iabtechlabtcf/core";
import type { TagReport } from "@cva/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTagScanner, type BrowserPool, type TagScanner } from "../src/index.ts";
import { sharedBrowserPool } from "./shared-pool.ts";
import { consentStates } from "../src/privacy/consent-states.ts";
import { vendorDb } from "../src/privacy/vendors.ts";
import { PIXEL_GIF, send, startFixtureServer, tagJob } from "./helpers.ts";

// Known-truth creatives for the consent states (privacy/): each is ours, served from one loopback fixture server
// under named hosts (the outbound policy's resolver maps every name to 127.0.0.1), with its expected verdicts. The
// publisher page is http://publisher.test (page_url), so plain-http fixture hosts are no mixed content.
// One browser for the whole file; each scan renders four states.

let pool: BrowserPool;
let scanner: TagScanner;
/** The same scanner rendering every state (TAG_CONSENT_DERIVE=0): what a derived state must agree with. */
let fullScanner: TagScanner;
let fixture: Awaited<ReturnType<typeof startFixtureServer>>;
let port = "";
const host = (name: string) => `http://${name}:${port}`;

// Fixture vendors, as the curated list names real ones (vendors.ts): a tracker and a DSP with GVL id 21.
const vendors = vendorDb({
  "tracker.test": { name: "Fixture Analytics", category: "analytics", gvlId: 0 },
  "dsp21.test": { name: "Fixture DSP", category: "ad_server", gvlId: 21 },
});

beforeAll(async () => {
  fixture = await startFixtureServer({
    "/px.gif": send("image/gif", PIXEL_GIF),
    "/lib.js": send("text/javascript", "window.__lib = 1;"),
    "/frame.html": send("text/html", FRAME_READS_TCF_BY_POSTMESSAGE),
  });
  port = new URL(fixture.origin).port;
  pool = sharedBrowserPool(2);
  const make = (consentDerive: boolean) => createTagScanner({
    pool, artifacts: createMemoryArtifactSink(), location: "usa", vendors, consentStates: true, consentDerive,
    policy: createOutboundPolicy(["127.0.0.0/8"], { resolve: async () => ["127.0.0.1"] }),
    pageHostPolicy: createOutboundPolicy(["127.0.0.0/8"], { resolve: async () => ["127.0.0.1"] }),
    // stepMs bounds each measuring read (storage among them): generous, for a loaded machine.
    timeouts: { renderMs: 8_000, holdMs: 1_000, stepMs: 8_000 },
  });
  scanner = make(true);
  fullScanner = make(false);
}, 60_000);
afterAll(async () => {
  await pool?.close();
  await fixture?.close();
});

const box = `<div style="width:300px;height:250px;background:#c00"></div>`;
const scan = (html: string, allowedDomains: string[] = []) => {
  const job = tagJob(html, { pageUrl: `${host("publisher.test")}/article.html` });
  if (job.input.case === "tag") job.input.value.allowedDomains = allowedDomains;
  return scanner.scan(job);
};
const state = (r: TagReport, name: string) => r.privacy!.states.find((s) => s.state === name)!;
/** Each extra state: `derived` (from no_cmp) or `rendered`. */
const how = (r: TagReport) => Object.fromEntries(r.privacy!.states.slice(1).map((s) => [s.state, s.derivedFrom === "no_cmp" ? "derived" : "rendered"]));
const PRIVACY_TESTS = ["no_identifiers_without_consent", "no_tracking_without_consent", "consent_macros_filled", "approved_vendors_only"] as const;
/** The spec tests' measurements on a report (null = left out). */
const verdicts = (r: TagReport) => Object.fromEntries(PRIVACY_TESTS.map((id) => [id, tagTests.get(id)!.measure(r)])) as Record<(typeof PRIVACY_TESTS)[number], unknown>;
const value = (m: unknown) => (m && typeof m === "object" ? (m as { value: number }).value : m);
const seenBy = (path: string) => fixture.seen.filter((s) => s.url.startsWith(path));

/** A cross-origin frame that asks the page's CMP by postMessage (the locator frame) and fires only with consent. */
const FRAME_READS_TCF_BY_POSTMESSAGE = `<!doctype html><script>
var f = window; var loc = null;
while (f) { try { if (f.frames["__tcfapiLocator"]) { loc = f; break; } } catch (e) {} if (f === window.top) break; f = f.parent; }
if (loc) {
  window.addEventListener("message", function (e) {
    var d = e.data && e.data.__tcfapiReturn; if (!d || d.callId !== "c1") return;
    var tc = d.returnValue;
    if (tc && tc.purpose.consents[1] && tc.vendor.consents[21]) new Image().src = "/px.gif?frame=consented&tc=" + tc.tcString;
  });
  loc.postMessage({ __tcfapiCall: { command: "getTCData", version: 2, callId: "c1" } }, "*");
}
</script>`;

describe("consent states: known-truth creatives", () => {
  it("sets a cookie and fires a pixel whatever the consent: violations under both refusals", async () => {
    const r = await scan(`${box}<script>document.cookie = "uid=u123; path=/"; localStorage.setItem("uid", "u123");
new Image().src = "${host("px.tracker.test")}/px.gif?e=imp";</script>`);
    const p = r.privacy!;
    expect(p.states.map((s) => s.state)).toEqual(["no_cmp", "tcf_denied", "tcf_granted", "gpp_us_opt_out"]);
    for (const s of p.states) {
      expect(s.error, s.state).toBe("");
      expect(s.cookies.map((c) => `${c.name}@${c.domain}`), s.state).toEqual(["uid@publisher.test"]);
      expect(s.storageKeys, s.state).toContain("uid");
      expect(s.thirdPartyDomains, s.state).toEqual(["tracker.test"]);
      expect(s.pixels, s.state).toBe(1);
    }
    expect(p.readsConsent).toBe(false);
    // It looks for no consent signal and has no macros: the TCF states are derived from no_cmp, saying so; the
    // GPP state is rendered, as the servers it contacts receive Sec-GPC: 1 and may answer otherwise.
    expect(p.consentSignals).toEqual([]);
    expect(how(r)).toEqual({ tcf_denied: "derived", tcf_granted: "derived", gpp_us_opt_out: "rendered" });
    expect(state(r, "tcf_denied").derivedReason).toMatch(/^not rendered: the creative looked for none of this state's consent signals, has no consent macros/);
    expect(state(r, "gpp_us_opt_out").renderedBecause).toMatch(/receive Sec-GPC/);
    const kinds = p.violations.map((v) => `${v.state}:${v.kind}:${v.what}`).sort();
    expect(kinds).toEqual([
      "gpp_us_opt_out:cookie:uid", "gpp_us_opt_out:storage:uid", `gpp_us_opt_out:tracking_request:${host("px.tracker.test")}/px.gif?e=imp`,
      "tcf_denied:cookie:uid", "tcf_denied:storage:uid", `tcf_denied:tracking_request:${host("px.tracker.test")}/px.gif?e=imp`,
    ].sort());
    const pixel = r.network!.responses.find((x) => x.url.includes("px.tracker.test"));
    expect(pixel?.vendor).toMatchObject({ name: "Fixture Analytics", category: "analytics" });
    const v = verdicts(r);
    expect(value(v.no_identifiers_without_consent)).toBe(4);
    expect(value(v.no_tracking_without_consent)).toBe(2);
    expect(v.consent_macros_filled).toBeNull();
    expect(v.approved_vendors_only).toBeNull();
    // GPC reached the network in gpp_us_opt_out only.
    const gpc = seenBy("/px.gif?e=imp").map((s) => s.headers["sec-gpc"] ?? "-");
    expect(gpc.filter((g) => g === "1")).toHaveLength(1);
  }, 90_000);

  it("reads __tcfapi (directly and from a frame by postMessage) and fires only with consent: no violation", async () => {
    const r = await scan(`${box}<script>
if (typeof __tcfapi === "function") {
  __tcfapi("addEventListener", 2, function (tc, ok) {
    if (!ok || (tc.eventStatus !== "tcloaded" && tc.eventStatus !== "useractioncomplete")) return;
    if (tc.gdprApplies && !(tc.purpose.consents[1] && tc.vendor.consents[21])) return;
    document.cookie = "uid=consented; path=/";
    new Image().src = "${host("px.tracker.test")}/px.gif?e=tcf&gdpr=1&gdpr_consent=" + tc.tcString;
  });
} else if (!navigator.globalPrivacyControl) {
  new Image().src = "${host("px.tracker.test")}/px.gif?e=nocmp";
}
</script><iframe src="${host("frame.dsp21.test")}/frame.html" width="1" height="1"></iframe>`);
    const p = r.privacy!;
    expect(p.violations).toEqual([]);
    expect(p.readsConsent).toBe(true);
    // Seen in its scripts (the frame's by name and by postMessage): every state whose CMP answers them is rendered.
    expect(p.consentSignals).toEqual(expect.arrayContaining(["__tcfapi", "__tcfapiCall", "__tcfapiLocator", "globalPrivacyControl"]));
    expect(how(r)).toEqual({ tcf_denied: "rendered", tcf_granted: "rendered", gpp_us_opt_out: "rendered" });
    expect(state(r, "tcf_denied").renderedBecause).toMatch(/^the creative looked for .*__tcfapi/);
    const calls = p.consentCalls.map((c) => `${c.state}:${c.api}:${c.command}:${c.viaPostMessage ? "post" : "direct"}`).sort();
    expect(calls).toEqual([
      "tcf_denied:__tcfapi:addEventListener:direct", "tcf_denied:__tcfapi:getTCData:post",
      "tcf_granted:__tcfapi:addEventListener:direct", "tcf_granted:__tcfapi:getTCData:post",
    ]);
    expect(state(r, "tcf_granted").cookies.map((c) => c.name)).toEqual(["uid"]);
    expect(state(r, "tcf_granted").pixels).toBe(2);
    expect(state(r, "tcf_denied").pixels).toBe(0);
    expect(state(r, "gpp_us_opt_out").pixels).toBe(0);
    expect(state(r, "no_cmp").pixels).toBe(1);
    // The TC string the creative read is the state's, as the library encodes it: consent for vendor 21 and purpose 1.
    const granted = seenBy("/px.gif?e=tcf")[0]!.url;
    const tc = TCString.decode(new URL(granted, "http://x").searchParams.get("gdpr_consent")!);
    expect([tc.vendorConsents.has(21), tc.purposeConsents.has(1), tc.cmpId]).toEqual([true, true, 2]);
    expect(seenBy("/px.gif?frame=consented")).toHaveLength(1);
    const v = verdicts(r);
    expect([v.no_identifiers_without_consent, v.no_tracking_without_consent]).toEqual([0, 0]);
  }, 90_000);

  it("${GDPR_CONSENT_755} on a vendor whose GVL id is 21, and a macro nobody fills: consent_macros_filled fails", async () => {
    const r = await scan(`${box}<img src="${host("ads.dsp21.test")}/px.gif?gdpr=\${GDPR}&gdpr_consent=\${GDPR_CONSENT_755}" width="1" height="1">
<script>new Image().src = "${host("sync.dsp21.test")}/px.gif?c=" + "$" + "{GDPR_CONSENT_21}";</script>`);
    const macros = r.privacy!.consentMacros.map((m) => `${m.macro} ${m.host} ${m.foundIn} filled=${m.filled} vendor=${m.vendorId} matches=${m.vendorMatches}`).sort();
    expect(macros).toEqual([
      "${GDPR_CONSENT_21} sync.dsp21.test request filled=false vendor=21 matches=true",
      "${GDPR_CONSENT_755} ads.dsp21.test markup filled=true vendor=755 matches=false",
      "${GDPR} ads.dsp21.test markup filled=true vendor=0 matches=true",
    ]);
    // The scan filled the markup's macros as the ad server would: each state's own TC string went out.
    const denied = consentStates().find((s) => s.name === "tcf_denied")!.cmp.tcString!;
    expect(seenBy(`/px.gif?gdpr=1&gdpr_consent=${denied}`)).toHaveLength(1);
    expect(value(verdicts(r).consent_macros_filled)).toBe(2);
  }, 90_000);

  it("honours GPC only: violations under tcf_denied, none under gpp_us_opt_out", async () => {
    const r = await scan(`${box}<script>if (!navigator.globalPrivacyControl) new Image().src = "${host("px.tracker.test")}/px.gif?e=gpc";</script>`);
    const states = [...new Set(r.privacy!.violations.map((v) => v.state))];
    expect(states).toEqual(["tcf_denied"]);
    // GPC is the only signal it reads: the TCF states (whose CMPs set no GPC) are derived, gpp_us_opt_out rendered.
    expect(how(r)).toEqual({ tcf_denied: "derived", tcf_granted: "derived", gpp_us_opt_out: "rendered" });
    expect(state(r, "gpp_us_opt_out").requests).toBe(0);
    expect(state(r, "tcf_granted").pixels).toBe(1);
  }, 90_000);

  it("calls a domain outside allowed_domains: approved_vendors_only fails, listing the host", async () => {
    const html = `${box}<script src="${host("cdn.allowed.test")}/lib.js"></script><img src="${host("x.unlisted.test")}/px.gif" width="1" height="1">`;
    const r = await scan(html, ["*.allowed.test", "publisher.test"]);
    expect(r.privacy!.allowedDomains).toEqual(["allowed.test", "publisher.test"]);
    expect(r.privacy!.unapprovedDomains).toEqual(["x.unlisted.test"]);
    expect(verdicts(r).approved_vendors_only).toEqual({ value: 1, detail: "outside allowed_domains: x.unlisted.test" });
  }, 90_000);

  it("reads no consent and contacts no server: every state derived, with the verdicts and summaries a full render gives", async () => {
    // A cookie only: read over CDP (Network.getAllCookies), which a loaded machine does not starve the way it can the
    // full run's bounded localStorage read — the comparison is about derivation, not about that read.
    const html = `${box}<script>document.cookie = "uid=u9; path=/";</script>`;
    // One after the other: two scans and three consent runs at once would load the machine more than the point needs.
    const derived = await scanner.scan(tagJob(html));
    const full = await fullScanner.scan(tagJob(html));
    expect(how(derived)).toEqual({ tcf_denied: "derived", tcf_granted: "derived", gpp_us_opt_out: "derived" });
    expect(how(full)).toEqual({ tcf_denied: "rendered", tcf_granted: "rendered", gpp_us_opt_out: "rendered" });
    for (const s of derived.privacy!.states.slice(1)) {
      expect(s.derivedReason, s.state).toMatch(/^not rendered: .*it renders as in no_cmp$/);
      expect(s.error, s.state).toBe("");
    }
    for (const s of full.privacy!.states) expect(s.error, s.state).toBe("");
    const facts = (r: TagReport) => r.privacy!.states.map((s) => ({
      state: s.state, cookies: s.cookies.map((c) => `${c.name}@${c.domain}`), third: s.thirdPartyDomains, requests: s.requests, pixels: s.pixels,
    }));
    expect(facts(derived)).toEqual(facts(full));
    const sorted = (r: TagReport) => r.privacy!.violations.filter((v) => v.kind !== "storage").map((v) => `${v.state}:${v.kind}:${v.what}`).sort();
    expect(sorted(derived)).toEqual(sorted(full));
    expect(sorted(derived)).toEqual(["gpp_us_opt_out:cookie:uid", "tcf_denied:cookie:uid"]);
    expect(verdicts(derived)).toEqual(verdicts(full));
    expect(value(verdicts(derived).no_identifiers_without_consent)).toBe(2);
  }, 120_000);

  it("builds the consent names at run time: the page half of the sensor sees the GPC read and the posted call", async () => {
    const r = await scan(`${box}<script>
var g = "global" + "Privacy" + "Control", c = "__tc" + "fapi" + "Call";
if (!navigator[g]) new Image().src = "${host("px.tracker.test")}/px.gif?e=built";
var m = {}; m[c] = { command: "ping", version: 2, callId: "p" }; window.postMessage(m, "*");
</script>`);
    expect(r.privacy!.consentSignals).toEqual(["__tcfapiCall", "globalPrivacyControl"]);
    expect(how(r)).toEqual({ tcf_denied: "rendered", tcf_granted: "rendered", gpp_us_opt_out: "rendered" });
    // Honours GPC: no pixel where it is sent.
    expect(state(r, "gpp_us_opt_out").pixels).toBe(0);
    expect(state(r, "tcf_denied").pixels).toBe(1);
  }, 90_000);
});
