// The analyzer's side of the SIMID run: which files it hands to the SIMID player (deps.simid, a tag-scanner job in
// production — simid-via-dispatcher.ts — here a recording fake), with what creativeData, and how the runs reach the
// report and the simid_handshake test. The harness itself is pinned by services/tag-scanner/test/simid.test.ts.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { create } from "@bufbuild/protobuf";
import { TestOutcome, VastSimidRunSchema, type SimidInput } from "@cva/contracts";
import { createOutboundPolicy, silentLogger, staticHostResolver } from "@cva/platform";
import { evaluateVast } from "@cva/spec-sets";
import { createVastAnalyzer } from "../src/index.ts";
import type { SimidFn } from "../src/simid.ts";
import { fakeProbe, startFixtureServer, vastJob, type FixtureServer } from "./fixtures.ts";

let srv: FixtureServer;
let port = "";
const policy = () => createOutboundPolicy(["127.0.0.0/8"], { resolve: staticHostResolver({ "vast.adserver.test": "127.0.0.1" }) });

function vast(): string {
  return `<VAST version="4.2"><Ad id="a"><InLine><AdSystem>T</AdSystem><AdTitle>t</AdTitle><AdServingId>s</AdServingId>
<Impression><![CDATA[http://vast.adserver.test:${port}/imp]]></Impression>
<Creatives><Creative><UniversalAdId idRegistry="ad-id.org">X</UniversalAdId><Linear><Duration>00:00:15.500</Duration>
<AdParameters><![CDATA[{"sku":"42"}]]></AdParameters>
<MediaFiles>
<MediaFile delivery="progressive" type="video/mp4" width="640" height="360"><![CDATA[http://vast.adserver.test:${port}/ad.mp4]]></MediaFile>
<InteractiveCreativeFile type="text/html" apiFramework="SIMID"><![CDATA[https://simid.example/good.html]]></InteractiveCreativeFile>
<InteractiveCreativeFile type="text/html" apiFramework="SIMID"><![CDATA[/relative/mute.html]]></InteractiveCreativeFile>
<InteractiveCreativeFile type="application/javascript" apiFramework="VPAID"><![CDATA[https://vpaid.example/v.js]]></InteractiveCreativeFile>
</MediaFiles>
<VideoClicks><ClickThrough><![CDATA[https://brand.example/landing]]></ClickThrough></VideoClicks>
</Linear></Creative></Creatives></InLine></Ad></VAST>`;
}

beforeAll(async () => {
  srv = await startFixtureServer();
  port = new URL(srv.origin).port;
  srv.xml("/vast.xml", vast());
});
afterAll(() => srv.close());

function fakeSimid(): { simid: SimidFn; calls: SimidInput[] } {
  const calls: SimidInput[] = [];
  return {
    calls,
    simid: async (input, _parent, call) => {
      calls.push(input);
      expect(call.timeoutMs).toBeGreaterThan(0);
      const good = input.url.endsWith("/good.html");
      return create(VastSimidRunSchema, {
        url: input.url, run: true, sessionCreated: true, sessionMs: 80, initResolved: good, initMs: good ? 4 : -1, startResolved: good, startMs: good ? 3 : -1,
        errors: good ? [] : ["no answer to SIMID:Player:init within 3 s"], sessionTimeoutMs: 5000, initTimeoutMs: 3000, startTimeoutMs: 3000,
      });
    },
  };
}

const url = () => `http://vast.adserver.test:${port}/vast.xml`;

describe("SIMID creatives of a VAST", () => {
  it("each SIMID InteractiveCreativeFile is run with its Linear's creativeData; VPAID is not run; the runs are reported per file", async () => {
    const f = fakeSimid();
    const analyzer = createVastAnalyzer({ policy: policy(), probe: fakeProbe().probe, location: "usa", logger: silentLogger(), simid: f.simid });
    const r = await analyzer.analyze(vastJob(url()));
    expect(f.calls.map((c) => ({ url: c.url, adParameters: c.adParameters, clickThruUrl: c.clickThruUrl, durationSeconds: c.durationSeconds }))).toEqual([
      { url: "https://simid.example/good.html", adParameters: '{"sku":"42"}', clickThruUrl: "https://brand.example/landing", durationSeconds: 15.5 },
      // Relative to the document it is in, as a player resolves it.
      { url: `http://vast.adserver.test:${port}/relative/mute.html`, adParameters: '{"sku":"42"}', clickThruUrl: "https://brand.example/landing", durationSeconds: 15.5 },
    ]);
    expect(r.simid.map((s) => [s.url, s.adIndex, s.run, s.initResolved, s.startResolved])).toEqual([
      ["https://simid.example/good.html", 0, true, true, true],
      [`http://vast.adserver.test:${port}/relative/mute.html`, 0, true, false, false],
    ]);
    expect(r.ads[0]!.vpaid).toBe(true);
    const t = evaluateVast(r, 0).tests.find((x) => x.test === "simid_handshake")!;
    expect(t).toMatchObject({ result: TestOutcome.FAILED, actual: 1 });
    expect(t.message).toContain(`2 SIMID files run; http://vast.adserver.test:${port}/relative/mute.html: no answer to SIMID:Player:init within 3 s`);
  });

  it("without a SIMID player each file is listed as not run, with why, and the test is not listed", async () => {
    const analyzer = createVastAnalyzer({ policy: policy(), probe: fakeProbe().probe, location: "usa", logger: silentLogger() });
    const r = await analyzer.analyze(vastJob(url()));
    expect(r.simid.map((s) => [s.run, s.error, s.sessionMs, s.initMs, s.startMs])).toEqual([
      [false, "not run: no SIMID player is configured for this analyzer", -1, -1, -1],
      [false, "not run: no SIMID player is configured for this analyzer", -1, -1, -1],
    ]);
    const results = evaluateVast(r, 0);
    expect(results.tests.map((x) => x.test)).not.toContain("simid_handshake");
    expect(results.tests.filter((x) => x.group === "xml" && x.result !== TestOutcome.PASSED && x.result !== TestOutcome.FAILED)).toEqual([]);
  });
});
