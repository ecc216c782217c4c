import { readFileSync } from "node:fs";
import { TCString } from "@iabtechlabtcf/core";
import { describe, expect, it } from "vitest";
import { buildCmpLibs, CMP_LIBS_PATH } from "../scripts/build-cmp-libs.mjs";
import { consentStates, fillMacros, GRANTED_MAX_VENDOR } from "../src/privacy/consent-states.ts";
import { normaliseAllowed, withinAllowed } from "../src/privacy/summary.ts";
import { planConsentStates } from "../src/privacy/consent-plan.ts";
import { consentNamesIn } from "../src/privacy/consent-sensor.ts";
import { bundleJob, tagJob } from "./helpers.ts";
import { registrableDomain, vendorDb, vendorOfHost } from "../src/privacy/vendors.ts";

// The pure parts of the consent states (privacy/): no browser. The known-truth creatives are test/privacy.test.ts.

describe("consent states", () => {
  it("TC strings say what each state claims, decoded by the IAB library", () => {
    const [denied, granted, gpp] = consentStates();
    const d = TCString.decode(denied!.cmp.tcString!);
    expect([d.purposeConsents.size, d.vendorConsents.size, d.specialFeatureOptins.size, d.purposeLegitimateInterests.size]).toEqual([0, 0, 0, 0]);
    expect(d.policyVersion).toBe(5);
    const g = TCString.decode(granted!.cmp.tcString!);
    expect(g.purposeConsents.size).toBe(11);
    expect(g.vendorConsents.size).toBe(GRANTED_MAX_VENDOR);
    expect([g.vendorConsents.has(755), g.specialFeatureOptins.has(1), g.specialFeatureOptins.has(2)]).toEqual([true, true, true]);
    expect(gpp!.headers).toEqual({ "Sec-GPC": "1" });
    expect(gpp!.cmp).toMatchObject({ tcString: null, uspString: "1YYN", gpc: true, gpp: { sids: [7] } });
    expect(gpp!.cmp.gpp!.gppString).toMatch(/^DBAB/);
  });

  it("fills the markup's consent macros as an ad server would, and leaves others", () => {
    const [denied, , gpp] = consentStates();
    const tag = "<img src='https://a.test/p?gdpr=${GDPR}&c=${GDPR_CONSENT_755}&ac=${ADDTL_CONSENT}&x=${CACHEBUSTER}'>";
    expect(fillMacros(tag, denied!)).toBe(`<img src='https://a.test/p?gdpr=1&c=${denied!.cmp.tcString}&ac=2~~dv.&x=\${CACHEBUSTER}'>`);
    expect(fillMacros("s=${GPP_STRING_21}&sid=${GPP_SID}&g=${GDPR}", gpp!)).toBe(`s=${gpp!.cmp.gpp!.gppString}&sid=7&g=0`);
  });
});

describe("which consent states are rendered (consent-plan.ts)", () => {
  const plan = (job: ReturnType<typeof tagJob>, seen: string[] = [], serverHosts: string[] = [], derive = true) =>
    Object.fromEntries(planConsentStates({ job, states: consentStates(), seen, serverHosts, derive }).map((p) => [p.state.name, p.render ? "render" : "derive"]));
  const STATIC = tagJob("<div>ad</div>");
  it("a creative that looks for nothing, has no macros and contacts no server: every state derived", () => {
    expect(plan(STATIC)).toEqual({ tcf_denied: "derive", tcf_granted: "derive", gpp_us_opt_out: "derive" });
    const [p] = planConsentStates({ job: STATIC, states: consentStates(), seen: [], serverHosts: [], derive: true });
    expect(p).toMatchObject({ render: false, derived: "not rendered: the creative looked for none of this state's consent signals, has no consent macros; it renders as in no_cmp" });
  });
  it("each signal renders the states whose CMP answers it; __cmp, tamper and unscanned render all", () => {
    expect(plan(STATIC, ["__tcfapi"])).toEqual({ tcf_denied: "render", tcf_granted: "render", gpp_us_opt_out: "derive" });
    expect(plan(STATIC, ["__tcfapiLocator"])).toEqual({ tcf_denied: "render", tcf_granted: "render", gpp_us_opt_out: "derive" });
    expect(plan(STATIC, ["globalPrivacyControl"])).toEqual({ tcf_denied: "derive", tcf_granted: "derive", gpp_us_opt_out: "render" });
    expect(plan(STATIC, ["__uspapiCall"])).toEqual({ tcf_denied: "derive", tcf_granted: "derive", gpp_us_opt_out: "render" });
    for (const all of ["__cmp", "tamper", "unscanned"]) expect(plan(STATIC, [all]), all).toEqual({ tcf_denied: "render", tcf_granted: "render", gpp_us_opt_out: "render" });
  });
  it("macros in the markup or a bundle's files render the states that fill them; a contacted server renders gpp_us_opt_out (Sec-GPC)", () => {
    expect(plan(tagJob("<img src='https://a.test/p?gdpr=${GDPR}'>"))).toEqual({ tcf_denied: "render", tcf_granted: "render", gpp_us_opt_out: "render" });
    // Only GPP macros: the TCF states leave them as they are (the creative is unchanged there).
    expect(plan(tagJob("<img src='https://a.test/p?g=${GPP_STRING_21}'>"))).toEqual({ tcf_denied: "derive", tcf_granted: "derive", gpp_us_opt_out: "render" });
    const bundle = bundleJob({ "index.html": "<script src='a.js'></script>", "a.js": "new Image().src='https://t.test/?c=${GDPR_CONSENT_755}'" }, "index.html");
    expect(plan(bundle)).toEqual({ tcf_denied: "render", tcf_granted: "render", gpp_us_opt_out: "render" });
    expect(plan(STATIC, [], ["px.tracker.test"])).toEqual({ tcf_denied: "derive", tcf_granted: "derive", gpp_us_opt_out: "render" });
    expect(plan(STATIC, [], [], false)).toEqual({ tcf_denied: "render", tcf_granted: "render", gpp_us_opt_out: "render" });
  });
  it("the script scan finds the names however a script uses them", () => {
    expect(consentNamesIn(`typeof __tcfapi;f.frames["__gppLocator"];m={__uspapiCall:{}};navigator.globalPrivacyControl;window.__cmp`).sort())
      .toEqual(["__cmp", "__gppLocator", "__tcfapi", "__uspapiCall", "globalPrivacyControl"]);
    expect(consentNamesIn("var tcfapi = 1; gpp(); __tc; GlobalPrivacy")).toEqual([]);
  });
});

describe("vendors", () => {
  it("maps hosts to the curated list by their parent domains; registrable domains from the public suffix list", () => {
    const db = vendorDb();
    expect(vendorOfHost(db, "ad.doubleclick.net")).toMatchObject({ name: "Google Advertising Products", gvlId: 755 });
    expect(vendorOfHost(db, "match.adsrvr.org")).toMatchObject({ name: "The Trade Desk", gvlId: 21, category: "ad_server" });
    expect(vendorOfHost(db, "pixel.adsafeprotected.com")).toMatchObject({ category: "verification" });
    expect(vendorOfHost(db, "example.com")).toBeUndefined();
    expect(registrableDomain("a.b.example.co.uk")).toBe("example.co.uk");
    expect(registrableDomain("93.184.216.34")).toBe("93.184.216.34");
  });

  it("allowed_domains: a domain covers itself and its subdomains, nothing else", () => {
    const allowed = normaliseAllowed(["*.Example.com", ".cdn.test", "example.com"]);
    expect(allowed).toEqual(["example.com", "cdn.test"]);
    expect(withinAllowed("ads.example.com", allowed)).toBe(true);
    expect(withinAllowed("example.com", allowed)).toBe(true);
    expect(withinAllowed("badexample.com", allowed)).toBe(false);
    expect(withinAllowed("example.com.evil.test", allowed)).toBe(false);
  });
});

describe("CMP page script", () => {
  it("the committed IAB bundle is what scripts/build-cmp-libs.mjs builds from the pinned packages", () => {
    expect(readFileSync(CMP_LIBS_PATH, "utf8")).toBe(buildCmpLibs());
  });
});
