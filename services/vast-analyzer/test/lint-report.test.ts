// The linter in the VAST report (`lint`, per-hop `lint_rules`) and the scan_results of a default install: every
// listed test is passed or failed — xml_schema is not listed without the IAB schemas, and the lint_* tests that
// replace it on every install are.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { create } from "@bufbuild/protobuf";
import { MediaProbeSchema, TestOutcome, type MediaInput, type VastReport } from "@cva/contracts";
import { createOutboundPolicy, silentLogger } from "@cva/platform";
import { evaluateVast } from "@cva/spec-sets";
import { createVastAnalyzer, type VastAnalyzer } from "../src/index.ts";
import { RULES } from "../src/lint/index.ts";
import { startFixtureServer, vastJob, type FixtureServer } from "./fixtures.ts";
import { baseDoc } from "./lint/bases.ts";

/** A media probe as the prober answers for a well-mastered 30 s 1080p MP4: every media test can be judged. */
async function measuredProbe(input: MediaInput) {
  return create(MediaProbeSchema, {
    url: input.url, httpCode: 200, fileSize: 7_500_000n, downloadSpeed: 12.5, downloadTimeMs: 600n, receivedBytes: 7_500_000n,
    fileInfo: {
      container: { format: "mov,mp4,m4a,3gp,3g2,mj2", mimeType: "video/mp4", moovAtomPosition: "beginning", duration: 30, bitRate: 2_000_000n },
      video: { codec: "h264", width: 1920, height: 1080, dimensions: "1920x1080", duration: 30, frameRate: 25, bitRate: 1_800_000n, bitDepth: 8, aspectRatio: "16:9", profile: "High", pixFmt: "yuv420p" },
      audio: { codec: "aac", profile: "LC", bitRate: 160_000n, sampleRate: 48_000, channels: 2, channelLayout: "stereo", loudness: { lufs: -24, lra: 5 } },
    },
  });
}

let srv: FixtureServer;
let analyzer: VastAnalyzer;
beforeAll(async () => {
  // Every foreign URL (pixels, media) answers 204 on the fixture server: nothing leaves the machine.
  srv = await startFixtureServer((_req, res) => res.writeHead(204).end());
  // A default install: no schemas given (no VAST_XSD_DIR).
  analyzer = createVastAnalyzer({
    policy: createOutboundPolicy(["127.0.0.0/8", "::1/128"]),
    probe: measuredProbe,
    location: "usa",
    logger: silentLogger(),
    limits: { pixelTimeoutMs: 2000 },
    rewriteUrl: (u) => (u.startsWith(srv.origin) ? u : srv.url(`/_external/${encodeURIComponent(u).slice(0, 100)}`)),
  });
});
afterAll(async () => {
  await srv.close();
});

async function scan(name: string, xml: string): Promise<VastReport> {
  srv.xml(`/${name}`, xml);
  return analyzer.analyze(vastJob(srv.url(`/${name}`)));
}
const lineOf = (xml: string, needle: string) => xml.slice(0, xml.indexOf(needle)).split("\n").length;

describe("lint in the VAST report", () => {
  it("a clean VAST 4.2 document: every rule of its version ran, nothing found, all 15 lint tests pass", async () => {
    const r = await scan("clean.xml", baseDoc("inline-4.2"));
    expect(r.lint).toEqual([]);
    expect(r.wrapperChain[0]!.lintRules).toBe(RULES.filter((x) => x.versions.includes("4.2")).length);
    const results = evaluateVast(r, 0);
    const lint = results.tests.filter((t) => t.test.startsWith("lint_"));
    expect(lint).toHaveLength(15);
    for (const t of lint) expect(t).toMatchObject({ result: TestOutcome.PASSED, actual: 0, group: "xml" });
  });

  it("a finding carries rule, severity, message, path, line, spec and hop, and fails its group's test", async () => {
    const xml = baseDoc("inline-4.2").replace("<Duration>00:00:30.000</Duration>", "<Duration>30</Duration>");
    const r = await scan("duration.xml", xml);
    expect(r.lint.map((f) => ({ ...f, $typeName: undefined }))).toEqual([{
      $typeName: undefined,
      rule: "vast.linear.duration.format",
      group: "value_formats",
      severity: "error",
      message: '<Duration> "30" is not HH:MM:SS or HH:MM:SS.mmm (e.g. 00:00:30.000): write it as HH:MM:SS or HH:MM:SS.mmm (e.g. 00:00:30.000)',
      path: "/VAST/Ad[1]/InLine/Creatives/Creative[1]/Linear/Duration",
      line: lineOf(xml, "<Duration>30"),
      spec: expect.stringContaining("VAST 4.2 §3.7.1 <Duration>"),
      hop: 0,
    }]);
    const t = evaluateVast(r, 0).tests.find((x) => x.test === "lint_value_formats")!;
    expect(t).toMatchObject({ result: TestOutcome.FAILED, actual: 1 });
    expect(t.message).toContain(`hop 0 line ${lineOf(xml, "<Duration>30")} /VAST/Ad[1]/InLine/Creatives/Creative[1]/Linear/Duration`);
    expect(t.message).toContain("[vast.linear.duration.format; VAST 4.2 §3.7.1 <Duration>");
  });

  it("each document of a wrapper chain is linted; a finding names its hop", async () => {
    const inline = baseDoc("inline-4.1").replace("<AdServingId>srv-0001</AdServingId>", "");
    srv.xml("/chain-inline.xml", inline);
    const wrapper = baseDoc("wrapper-4.1").replace("https://ads.adserver.net/vast?slot=preroll&cb=[CACHEBUSTING]", srv.url("/chain-inline.xml"));
    const r = await scan("chain-wrapper.xml", wrapper);
    expect(r.wrapperChain.map((h) => h.lintRules)).toEqual([236, 236]);
    // The wrapper points at the fixture server (http, loopback): its own findings say so; the inline ad lacks AdServingId.
    expect(r.lint.filter((f) => f.hop === 0).map((f) => f.rule).sort()).toEqual(["vast.url.insecure", "vast.url.non-production-host"]);
    expect(r.lint.filter((f) => f.hop === 1).map((f) => [f.rule, f.path])).toEqual([["vast.inline.ad-serving-id.required", "/VAST/Ad[1]/InLine"]]);
  });

  it("a document that could not be parsed is not linted: lint_rules 0, and no lint test is listed", async () => {
    const r = await scan("broken.xml", "<VAST version=\"4.2\"><Ad><InLine></Ad></VAST>");
    expect(r.type).toBe("invalid");
    expect(r.wrapperChain[0]!.lintRules).toBe(0);
    expect(evaluateVast(r, 0).tests.filter((t) => t.test.startsWith("lint_"))).toEqual([]);
  });
});

describe("a default install lists no test it cannot evaluate", () => {
  const docs: Array<[string, () => string]> = [
    ["a clean VAST 4.2 inline ad", () => baseDoc("inline-4.2")],
    ["a VAST 4.3 ad (IAB published no XSD)", () => baseDoc("inline-4.3")],
    ["a VAST 2.0 ad", () => baseDoc("inline-2.0")],
    ["a VAST 3.0 ad with lint errors", () => baseDoc("inline-3.0").replace(/<AdTitle>[^<]*<\/AdTitle>/, "").replace('type="video/mp4" width="1920"', 'type="mp4" width="1920"')],
    ["a VMAP playlist", () => baseDoc("vmap")],
    ["a VAST 1.0 document", () => baseDoc("vast1")],
    ["an empty VAST response", () => '<VAST version="4.2"><Error><![CDATA[https://track.adserver.net/no-ad?e=[ERRORCODE]]]></Error></VAST>'],
    ["malformed XML", () => "<VAST version=\"4.2\"><Ad>"],
  ];
  it.each(docs)("%s: passed + failed = the number of tests; no xml_schema, no error result", async (name, doc) => {
    const r = await scan(`default-${name.replace(/\W+/g, "-")}.xml`, doc());
    expect(r.schemaChecks).toEqual([]);
    const results = evaluateVast(r, 0);
    expect(results.tests.map((t) => t.test)).not.toContain("xml_schema");
    expect(results.tests.filter((t) => t.result === TestOutcome.ERROR).map((t) => `${t.group}/${t.test}: ${t.message}`)).toEqual([]);
    expect(results.passed + results.failed).toBe(results.tests.length);
  });

  it("a VAST URL that answers HTTP 404 too", async () => {
    srv.route("/gone.xml", (_req, res) => res.writeHead(404, { "content-type": "text/plain" }).end("gone"));
    const r = await analyzer.analyze(vastJob(srv.url("/gone.xml")));
    const results = evaluateVast(r, 0);
    expect(results.passed + results.failed).toBe(results.tests.length);
  });
});
