// VAST depth: every <Ad> of a pod, VAST 1.0, the IAB XSD of each document's version (line-numbered findings), the
// per-version required elements, VPAID, SIMID, companions, unexpanded macros — on corpus files where the corpus has
// them (skipped visibly without it), hand-made documents otherwise.
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TestOutcome, type VastReport } from "@cva/contracts";
import { createOutboundPolicy, silentLogger } from "@cva/platform";
import { corpusDir, describeWithCorpus } from "@cva/platform/testing/index.ts";
import { evaluateVast } from "@cva/spec-sets";
import { createVastAnalyzer, type VastAnalyzer } from "../src/index.ts";
import { createSchemaValidator } from "../src/xsd.ts";
import { unexpandedMacrosIn } from "../src/unexpanded-macros.ts";
import { vastDir } from "./corpus-fixture.ts";
import { fakeProbe, startFixtureServer, vastJob, type FixtureServer } from "./fixtures.ts";

const corpusFile = (rel: string) => readFileSync(path.join(vastDir, rel), "utf8");

function outcome(r: VastReport, id: string) {
  const t = evaluateVast(r, 0).tests.find((x) => x.test === id && x.group === "xml");
  if (!t) return undefined;
  return { result: t.result === TestOutcome.PASSED ? "passed" : t.result === TestOutcome.FAILED ? "failed" : "error", actual: t.actual, message: t.message };
}

let srv: FixtureServer;
let analyzer: VastAnalyzer;
beforeAll(async () => {
  // Pixels and everything foreign answer 204: nothing leaves the machine.
  srv = await startFixtureServer((_req, res) => res.writeHead(204).end());
  analyzer = createVastAnalyzer({
    policy: createOutboundPolicy(["127.0.0.0/8", "::1/128"]),
    probe: fakeProbe().probe,
    location: "usa",
    logger: silentLogger(),
    limits: { pixelTimeoutMs: 2000 },
    schemas: createSchemaValidator(corpusDir("vast/iab-vast-schemas")),
    rewriteUrl: (u) => (u.startsWith(srv.origin) ? u : srv.url(`/_external/${encodeURIComponent(u).slice(0, 100)}`)),
  });
});
afterAll(async () => {
  await srv.close();
});

async function scanText(name: string, xml: string): Promise<VastReport> {
  srv.xml(`/${name}`, xml);
  return analyzer.analyze(vastJob(srv.url(`/${name}`)));
}

describe("hand-made documents", () => {
  it("flags only macros no player fills", () => {
    expect(unexpandedMacrosIn("https://t.example/p?cb=[CACHEBUSTING]&e=[ERRORCODE]")).toEqual([]);
    expect(unexpandedMacrosIn("https://t.example/p?cb=%%CACHEBUSTER%%&p=${AUCTION_PRICE}&x=[MY_SERVER_ID]&t={{ts}}")).toEqual(["%%CACHEBUSTER%%", "${AUCTION_PRICE}", "{{ts}}", "[MY_SERVER_ID]"]);
  });

  it("analyses both ads of a 2-ad pod in sequence order, fires both ads' impressions, lists unexpanded macros", async () => {
    const ad = (id: string, seq: number, media: string) => `<Ad id="${id}" sequence="${seq}"><InLine><AdSystem>Pod</AdSystem><AdTitle>${id}</AdTitle>
<Impression><![CDATA[${srv.url(`/pixel?ad=${id}`)}]]></Impression><Error><![CDATA[https://e.example/e?c=[ERRORCODE]]]></Error>
<Creatives><Creative><Linear><Duration>00:00:15</Duration><TrackingEvents><Tracking event="start"><![CDATA[https://t.example/s?cb=%%CACHEBUSTER%%]]></Tracking></TrackingEvents>
<MediaFiles><MediaFile delivery="progressive" type="video/mp4" width="640" height="360"><![CDATA[${media}]]></MediaFile></MediaFiles></Linear></Creative></Creatives></InLine></Ad>`;
    const r = await scanText("pod.xml", `<VAST version="3.0">${ad("second", 2, "https://m.example/b.mp4")}${ad("first", 1, "https://m.example/a.mp4")}</VAST>`);
    expect(r.ads.map((a) => [a.id, a.sequence, a.type, [...a.creativeIndexes]])).toEqual([["first", 1, "inline", [0]], ["second", 2, "inline", [1]]]);
    expect(r.creatives.map((c) => [c.adIndex, c.mediafiles[0]!.probe!.url])).toEqual([[0, "https://m.example/a.mp4"], [1, "https://m.example/b.mp4"]]);
    expect(r.impressionPixels).toEqual([srv.url("/pixel?ad=first"), srv.url("/pixel?ad=second")]);
    expect(r.unexpandedMacros).toEqual(["https://t.example/s?cb=%%CACHEBUSTER%%"]);
    expect(outcome(r, "unexpanded_macros")).toMatchObject({ result: "failed", actual: 1, message: expect.stringContaining("%%CACHEBUSTER%%") });
    expect(outcome(r, "error_url")).toMatchObject({ result: "passed" });
    expect(outcome(r, "tracking_events")).toMatchObject({ result: "failed", message: expect.stringContaining("ad first: firstQuartile, midpoint, thirdQuartile, complete") });
  });

  it("follows each wrapper of a pod through its own chain; a dead one is listed with why", async () => {
    srv.xml("/pod-target.xml", `<VAST version="3.0"><Ad id="t"><InLine><AdSystem>Target</AdSystem><AdTitle>wrapped</AdTitle>
<Impression>${srv.url("/pixel?ad=target")}</Impression><Creatives><Creative><Linear><Duration>00:00:10</Duration><MediaFiles>
<MediaFile delivery="progressive" type="video/mp4" width="640" height="360">https://m.example/w.mp4</MediaFile></MediaFiles></Linear></Creative></Creatives></InLine></Ad></VAST>`);
    const r = await scanText("mixed-pod.xml", `<VAST version="3.0">
<Ad id="a1" sequence="1"><InLine><AdSystem>Pod</AdSystem><AdTitle>own</AdTitle><Impression>${srv.url("/pixel?ad=a1")}</Impression><Creatives><Creative><Linear><Duration>00:00:05</Duration><MediaFiles>
<MediaFile delivery="progressive" type="video/mp4" width="640" height="360">https://m.example/a1.mp4</MediaFile></MediaFiles></Linear></Creative></Creatives></InLine></Ad>
<Ad id="a2" sequence="2"><Wrapper><AdSystem>Pod</AdSystem><VASTAdTagURI>${srv.url("/pod-target.xml")}</VASTAdTagURI><Impression>${srv.url("/pixel?ad=a2-wrapper")}</Impression></Wrapper></Ad>
<Ad id="a3" sequence="3"><Wrapper><AdSystem>Pod</AdSystem><VASTAdTagURI>http://127.0.0.1:9/dead.xml</VASTAdTagURI></Wrapper></Ad>
</VAST>`);
    expect(r.ads.map((a) => [a.id, a.sequence, a.type, a.adTitle, [...a.creativeIndexes]])).toEqual([
      ["a1", 1, "inline", "own", [0]], ["a2", 2, "inline", "wrapped", [1]], ["a3", 3, "wrapper", "", []],
    ]);
    // (Every foreign URL answers 204 here: the dead wrapper's target is an empty answer.)
    expect(r.ads[2]!.error).toMatch(/^its wrapper chain did not end in an ad: VAST document http:\/\/127\.0\.0\.1:9\/dead\.xml is empty \(no XML\)$/);
    expect(r.creatives[1]!.mediafiles[0]!.probe!.url).toBe("https://m.example/w.mp4");
    expect(r.impressionPixels).toEqual([srv.url("/pixel?ad=a1"), srv.url("/pixel?ad=a2-wrapper"), srv.url("/pixel?ad=target")]);
  });

  it("reports a VPAID creative as deprecated, and a SIMID interactive file, Open Measurement and a mezzanine", async () => {
    const r = await scanText("interactive.xml", `<VAST version="4.1"><Ad id="i"><InLine><AdSystem>X</AdSystem><AdServingId>a1</AdServingId><AdTitle>t</AdTitle>
<Impression>https://i.example/i</Impression>
<AdVerifications><Verification vendor="iabtechlab.com-omid"><JavaScriptResource apiFramework="omid" browserOptional="true"><![CDATA[https://v.example/omid.js]]></JavaScriptResource></Verification></AdVerifications>
<Creatives><Creative><UniversalAdId idRegistry="Ad-ID">ABCD1234000H</UniversalAdId><Linear><Duration>00:00:15</Duration><MediaFiles>
<MediaFile delivery="progressive" type="application/javascript" apiFramework="VPAID" width="640" height="360"><![CDATA[https://m.example/vpaid.js]]></MediaFile>
<Mezzanine delivery="progressive" type="video/mp4" width="1920" height="1080"><![CDATA[https://m.example/mezz.mp4]]></Mezzanine>
<InteractiveCreativeFile type="text/html" apiFramework="SIMID"><![CDATA[https://s.example/simid.html]]></InteractiveCreativeFile>
</MediaFiles></Linear></Creative></Creatives></InLine></Ad></VAST>`);
    const a = r.ads[0]!;
    expect(a.vpaid).toBe(true);
    expect(a.interactiveFiles.map((f) => [f.apiFramework, f.url])).toEqual([["SIMID", "https://s.example/simid.html"]]);
    expect(a.verifications.map((v) => [v.vendor, v.javascriptResourceUrl, v.apiFramework])).toEqual([["iabtechlab.com-omid", "https://v.example/omid.js", "omid"]]);
    expect([...a.mezzanineUrls]).toEqual(["https://m.example/mezz.mp4"]);
    expect([...a.universalAdIds]).toEqual(["Ad-ID:ABCD1234000H"]);
    expect(outcome(r, "vpaid")).toMatchObject({ result: "failed", message: expect.stringContaining("deprecated since VAST 4.1") });
    expect(outcome(r, "mezzanine")).toMatchObject({ result: "passed" });
    expect(outcome(r, "universal_ad_id")).toMatchObject({ result: "passed" });
  });
});

describeWithCorpus("corpus documents", "vast", () => {
  it("a pod of 2 ads (zentrick sequence.xml): both analysed, in sequence order, with the companion's resource", async () => {
    const r = await scanText("sequence.xml", corpusFile("zentrick-iab-vast-parser/strict/zentrick/sequence.xml"));
    expect(r.ads.map((a) => [a.id, a.sequence])).toEqual([["preroll-1", 1], ["preroll-2", 2]]);
    expect(r.creatives.map((c) => c.adIndex)).toEqual([0, 1]);
    expect(r.ads[1]!.companions.map((c) => [c.width, c.height, c.resourceType])).toEqual([[300, 250, "html"]]);
    expect(r.ads[1]!.companions[0]!.resource).toMatch(/^<A onClick/);
  });

  it("VAST 1.0 is analysed, not only named", async () => {
    const r = await scanText("outdated-vast.xml", corpusFile("dailymotion-vast-client-js/outdated-vast.xml"));
    expect([r.type, r.vastVersion, r.adSystem, r.adTitle]).toEqual(["inline", "1.0", "example-1", "123456"]);
    const c = r.creatives[0]!;
    expect([c.type, c.duration, c.adId, c.mediafiles[0]!.attributes!.type, c.mediafiles[0]!.probe!.url]).toEqual(["linear", "00:00:15", "preroll-1", "video/x-flv", "http://example.com/ads/mediafile1.flv"]);
    const regular = await scanText("vast1RegularLinear.xml", corpusFile("iab-vast-samples/vast-1-2.0/vast1RegularLinear.xml"));
    expect(regular.impressionPixels.length).toBeGreaterThan(3);
    expect(regular.ads[0]!.trackingEvents).toEqual(expect.arrayContaining(["start", "midpoint", "complete"]));
    expect(regular.ads[0]!.companions).toHaveLength(1);
    // 1.0 is obsolete, and there is no IAB schema for it.
    expect(outcome(regular, "vast_version")).toMatchObject({ result: "failed" });
    expect(regular.schemaChecks[0]!.error).toMatch(/no IAB schema for VAST 1\.0/);
  });

  it("a 4.1 document missing UniversalAdId fails universal_ad_id, and the 4.1 XSD names the line", async () => {
    const xml = corpusFile("iab-vast-samples/vast-4.1/Inline_Linear_Tag-test.xml").replace(/\s*<UniversalAdId[^>]*>[^<]*<\/UniversalAdId>/, "");
    const r = await scanText("no-uaid.xml", xml);
    expect(r.ads[0]!.universalAdIds).toEqual([""]);
    expect(outcome(r, "universal_ad_id")).toMatchObject({ result: "failed", message: expect.stringContaining("no UniversalAdId: ad 20001 creative 0") });
    const intact = await scanText("uaid.xml", corpusFile("iab-vast-samples/vast-4.1/Inline_Linear_Tag-test.xml"));
    expect(outcome(intact, "universal_ad_id")).toMatchObject({ result: "passed" });
    expect(outcome(intact, "xml_schema")).toMatchObject({ result: "passed", message: expect.stringContaining("vast_4.1.xsd") });
    expect(r.schemaChecks[0]!.findings.map((f) => f.message).join(" ")).toMatch(/UniversalAdId/);
  });

  it("a schema violation is a line-numbered finding in the xml group", async () => {
    // The IAB 4.1 sample with an element the 4.1 schema does not allow, on a line of its own.
    const lines = corpusFile("iab-vast-samples/vast-4.1/Inline_Linear_Tag-test.xml").split("\n");
    const at = lines.findIndex((l) => l.includes("<AdSystem")) + 1;
    lines.splice(at, 0, "      <Sponsor>not VAST</Sponsor>");
    const r = await scanText("violation.xml", lines.join("\n"));
    expect(r.schemaChecks[0]).toMatchObject({ hop: 0, schema: "vast_4.1.xsd", error: "" });
    expect(r.schemaChecks[0]!.findings[0]).toMatchObject({ line: at + 1, message: expect.stringContaining("Element 'Sponsor': This element is not expected") });
    expect(outcome(r, "xml_schema")).toMatchObject({ result: "failed", actual: 1, message: expect.stringContaining(`hop 0 (vast_4.1.xsd) line ${at + 1}: Element 'Sponsor'`) });
    // The rs-vast 4.0 document is valid against vast4.xsd (its AdTitle placement is 4.1's problem, not 4.0's).
    const v40 = await scanText("vast4_universal_ad_id.xml", corpusFile("rs-vast/vast4_universal_ad_id.xml"));
    expect(v40.schemaChecks[0]).toMatchObject({ schema: "vast4.xsd", findings: [] });
  });

  it("a VPAID creative (dailymotion vpaid.xml) fails vpaid as deprecated", async () => {
    const r = await scanText("vpaid.xml", corpusFile("dailymotion-vast-client-js/vpaid.xml"));
    expect(r.ads[0]!.vpaid).toBe(true);
    expect(outcome(r, "vpaid")).toMatchObject({ result: "failed", actual: 1 });
  });

  it("a SIMID creative (IAB 4.3 Interactive_Creative_File) is reported", async () => {
    const r = await scanText("simid.xml", corpusFile("haxqer-vast/iab-vast-4.3/Interactive_Creative_File_Data_URI-test.xml"));
    expect(r.ads[0]!.interactiveFiles.map((f) => f.apiFramework)).toContain("SIMID");
    // No IAB schema for 4.3: said in schema_checks, not guessed; the test is then not listed (nothing was validated),
    // and the linter's 4.3 rules ran in its place.
    expect(r.schemaChecks[0]!.error).toMatch(/no IAB schema for VAST 4\.3/);
    expect(outcome(r, "xml_schema")).toBeUndefined();
    expect(r.wrapperChain[0]!.lintRules).toBeGreaterThan(200);
    expect(outcome(r, "lint_required_elements")).toBeDefined();
  });

  it("companions are reported with their resources (IAB 4.1 Inline_Companion_Tag)", async () => {
    const r = await scanText("companion.xml", corpusFile("iab-vast-samples/vast-4.1/Inline_Companion_Tag-test.xml"));
    const companions = r.ads[0]!.companions;
    expect(companions.length).toBeGreaterThan(0);
    for (const c of companions) {
      expect(c.width * c.height, c.id).toBeGreaterThan(0);
      expect(["static", "iframe", "html"], c.id).toContain(c.resourceType);
      expect(c.resource, c.id).not.toBe("");
    }
  });
});
