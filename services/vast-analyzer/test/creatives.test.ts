import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOutboundPolicy, silentLogger } from "@cva/platform";
import { createVastAnalyzer } from "../src/index.ts";
import { expandMacros } from "../src/macros.ts";
import { fakeProbe, inlineVast, startFixtureServer, vastJob, wrapperVast, type FixtureServer } from "./fixtures.ts";

// Known truth for what the analyzer makes of creatives: NonLinear overlays reported with their resource loaded,
// Linear creatives without media and companion-only ads said to have nothing to play, and every URL the analyzer
// requests (wrapper targets, media) requested with its macros filled, as a player requests it.

const loopback = createOutboundPolicy(["127.0.0.0/8", "::1/128"]);
const PNG_1x1 = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "base64");

let srv: FixtureServer;
beforeAll(async () => {
  srv = await startFixtureServer();
  srv.route("/overlay.png", (_req, res) => res.writeHead(200, { "content-type": "image/png" }).end(PNG_1x1));
  srv.route("/imp", (_req, res) => res.writeHead(204).end());
  srv.route("/not-an-image.png", (_req, res) => res.writeHead(200, { "content-type": "text/html" }).end("<html>sorry</html>"));
});
afterAll(async () => {
  await srv.close();
});

function analyzer(probe = fakeProbe()) {
  return createVastAnalyzer({ policy: loopback, probe: probe.probe, location: "usa", logger: silentLogger() });
}

function vast(creatives: string, version = "3.0"): string {
  return `<?xml version="1.0"?><VAST version="${version}"><Ad id="a"><InLine><AdSystem>Fixture</AdSystem><AdTitle>t</AdTitle>
<Impression>${srv.url("/imp")}</Impression><Creatives>${creatives}</Creatives></InLine></Ad></VAST>`;
}

const nonLinear = (resource: string, attrs = 'width="480" height="70" minSuggestedDuration="00:00:05"') =>
  `<Creative id="nl"><NonLinearAds><NonLinear id="o1" ${attrs}>${resource}<NonLinearClickThrough>https://advertiser.example/</NonLinearClickThrough></NonLinear></NonLinearAds></Creative>`;

describe("NonLinear creatives", () => {
  it("are reported with their overlay, whose resource is loaded like a player loads it", async () => {
    srv.xml("/nl-ok.xml", vast(nonLinear(`<StaticResource creativeType="image/png"><![CDATA[${srv.url("/overlay.png")}]]></StaticResource>`)));
    const r = await analyzer().analyze(vastJob(srv.url("/nl-ok.xml")));
    expect(r.errors).toEqual([]);
    expect(r.creatives).toHaveLength(1);
    const c = r.creatives[0]!;
    expect(c).toMatchObject({ type: "nonlinear", id: "nl", clickThroughUrl: "https://advertiser.example/", duration: "00:00:05" });
    expect(c.mediafiles).toEqual([]);
    expect(c.nonLinears).toHaveLength(1);
    expect(c.nonLinears[0]).toMatchObject({
      id: "o1", width: 480, height: 70, resourceType: "static", resourceUrl: srv.url("/overlay.png"), creativeType: "image/png",
      httpCode: 200, contentType: "image/png", error: "", minSuggestedDuration: "00:00:05",
    });
  });

  it("say why an overlay cannot be shown: 404, not an image, no resource, empty HTML", async () => {
    srv.xml("/nl-bad.xml", vast([
      nonLinear(`<StaticResource creativeType="image/png">${srv.url("/missing.png")}</StaticResource>`),
      nonLinear(`<StaticResource creativeType="image/png">${srv.url("/not-an-image.png")}</StaticResource>`),
      nonLinear(""),
      nonLinear("<HTMLResource><![CDATA[   ]]></HTMLResource>"),
      nonLinear("<HTMLResource><![CDATA[<b>overlay</b>]]></HTMLResource>"),
    ].join("")));
    const r = await analyzer().analyze(vastJob(srv.url("/nl-bad.xml")));
    const errors = r.creatives.map((c) => c.nonLinears[0]!.error);
    expect(errors).toEqual([
      "the resource answered HTTP 404",
      "the StaticResource is declared image/png but is not an image",
      "the NonLinear has no StaticResource, IFrameResource or HTMLResource: nothing to show",
      "the HTMLResource is empty",
      "",
    ]);
    expect(r.creatives[0]!.nonLinears[0]!.httpCode).toBe(404);
  });

  it("keep document order with Linear creatives (creative indexes are the report's)", async () => {
    srv.xml("/mixed.xml", vast(
      nonLinear(`<StaticResource creativeType="image/png">${srv.url("/overlay.png")}</StaticResource>`) +
        `<Creative id="lin"><Linear><Duration>00:00:10</Duration><MediaFiles><MediaFile delivery="progressive" type="video/mp4" width="640" height="360">${srv.url("/m.mp4")}</MediaFile></MediaFiles></Linear></Creative>`,
    ));
    const r = await analyzer().analyze(vastJob(srv.url("/mixed.xml")));
    expect(r.creatives.map((c) => [c.type, c.id, c.mediafiles.length, c.nonLinears.length])).toEqual([
      ["nonlinear", "nl", 0, 1],
      ["linear", "lin", 1, 0],
    ]);
  });
});

describe("ads with nothing to play say so", () => {
  it("a Linear without MediaFile", async () => {
    srv.xml("/no-media.xml", inlineVast({ media: [] }));
    const r = await analyzer().analyze(vastJob(srv.url("/no-media.xml")));
    expect(r.creatives).toHaveLength(1);
    expect(r.creatives[0]).toMatchObject({ type: "linear", mediafiles: [] });
    expect(r.errors).toContain("creative 0 (Linear) has no MediaFile: a player has nothing to play");
  });

  it("CompanionAds only, or no creative at all", async () => {
    srv.xml("/companion.xml", vast(`<Creative><CompanionAds><Companion width="300" height="250"><StaticResource creativeType="image/png">${srv.url("/overlay.png")}</StaticResource></Companion></CompanionAds></Creative>`));
    const c = await analyzer().analyze(vastJob(srv.url("/companion.xml")));
    expect(c.creatives).toEqual([]);
    expect(c.errors).toEqual(["the inline ad has no Linear or NonLinear creative (it has CompanionAds only, which are shown beside a video or overlay, never alone): nothing to play"]);
    srv.xml("/none.xml", vast(""));
    const n = await analyzer().analyze(vastJob(srv.url("/none.xml")));
    expect(n.errors).toEqual(["the inline ad has no Linear or NonLinear creative (its <Creatives> holds no <Creative>): nothing to play"]);
  });
});

describe("macros are filled in every URL the analyzer requests", () => {
  it("wrapper targets and media files: [CACHEBUSTING], %%CACHEBUSTER%% and [TIMESTAMP] are filled, the report lists them as written", async () => {
    srv.xml("/macro/inline.xml", inlineVast({ media: [srv.url("/media/a.mp4?cb=[CACHEBUSTING]&t=[TIMESTAMP]")] }));
    srv.xml("/macro/wrapper.xml", wrapperVast(srv.url("/macro/inline.xml?cb=[CACHEBUSTING]&gam=%%CACHEBUSTER%%&other=[CONTENTPLAYHEAD]")));
    const probe = fakeProbe();
    const r = await analyzer(probe).analyze(vastJob(srv.url("/macro/wrapper.xml")));
    expect(r.type).toBe("wrapper");
    expect(r.wrapperRedirects).toBe(1);
    const wrapperHit = srv.hits.find((h) => h.startsWith("/macro/inline.xml"))!;
    expect(wrapperHit).toMatch(/^\/macro\/inline\.xml\?cb=\d{8}&gam=\d{8}&other=%5BCONTENTPLAYHEAD%5D$/);
    // The media file is requested with its macros filled ...
    expect(probe.calls).toHaveLength(1);
    expect(probe.calls[0]!.url).toMatch(new RegExp(`^${srv.url("/media/a.mp4")}\\?cb=\\d{8}&t=\\d{4}-\\d{2}-\\d{2}T`));
    // ... and reported as declared.
    expect(r.creatives[0]!.mediafiles[0]!.probe!.url).toBe(srv.url("/media/a.mp4?cb=[CACHEBUSTING]&t=[TIMESTAMP]"));
  });

  it("expandMacros: known spellings filled, unknown brackets encoded, host untouched", () => {
    const now = new Date("2026-01-02T03:04:05.000Z");
    const out = expandMacros(new URL("http://[::1]:8080/p/[CACHEBUSTER]?a=%5BCACHEBUSTING%5D&b=[TIMESTAMP]&c=[ERRORCODE]&d=%%CACHEBUSTER%%"), now);
    expect(out).toMatch(/^http:\/\/\[::1\]:8080\/p\/\d{8}\?a=\d{8}&b=2026-01-02T03%3A04%3A05.000Z&c=%5BERRORCODE%5D&d=\d{8}$/);
  });
});

describe("photosensitivity: one rendition per Linear creative is flagged for the flash analysis (flash-rendition.ts)", () => {
  const mf = (path: string, attrs: string) => `<MediaFile ${attrs}><![CDATA[${srv.url(path)}]]></MediaFile>`;
  const linear = (id: string, files: string[]) =>
    `<Creative id="${id}"><Linear><Duration>00:00:10</Duration><MediaFiles>${files.join("")}</MediaFiles></Linear></Creative>`;

  it("the smallest decodable progressive video of each creative, never VPAID, a playlist or a streaming file; a shared URL is probed once, flagged", async () => {
    srv.xml("/flash-pick.xml", vast([
      linear("a", [
        mf("/a-1080.mp4", 'delivery="progressive" type="video/mp4" width="1920" height="1080" bitrate="6000"'),
        mf("/a-vpaid.js", 'delivery="progressive" type="application/javascript" apiFramework="VPAID" width="16" height="9"'),
        mf("/a.m3u8", 'delivery="streaming" type="application/x-mpegURL" width="320" height="180"'),
        mf("/a-stream.mp4", 'delivery="streaming" type="video/mp4" width="320" height="180"'),
        mf("/a-360.mp4", 'delivery="progressive" type="video/mp4" width="640" height="360" bitrate="800"'),
        mf("/a-360.webm", 'delivery="progressive" type="video/webm" width="640" height="360" bitrate="500"'),
        mf("/a-720.mp4", 'delivery="progressive" type="video/mp4" width="1280" height="720"'),
      ]),
      // The second creative's smallest is the first creative's 720p file: probed once, with the analysis.
      linear("b", [
        mf("/a-720.mp4", 'delivery="progressive" type="video/mp4" width="1280" height="720"'),
        mf("/b-1080.mp4", 'delivery="progressive" type="video/mp4" width="1920" height="1080"'),
      ]),
      // No declared size: the first candidate.
      linear("c", [mf("/c-audio.mp3", 'delivery="progressive" type="audio/mpeg"'), mf("/c-1.mp4", 'delivery="progressive" type="video/mp4"'), mf("/c-2.mp4", 'delivery="progressive" type="video/mp4"')]),
    ].join("")));
    const probe = fakeProbe();
    const r = await analyzer(probe).analyze(vastJob(srv.url("/flash-pick.xml")));
    expect(r.creatives).toHaveLength(3);
    const flagged = probe.calls.filter((c) => c.analyzeFlashes).map((c) => new URL(c.url).pathname).sort();
    // Equal size: the lower declared bitrate (the WebM at 500 kbps against the MP4 at 800).
    expect(flagged).toEqual(["/a-360.webm", "/a-720.mp4", "/c-1.mp4"]);
    expect(probe.calls.filter((c) => new URL(c.url).pathname === "/a-720.mp4")).toHaveLength(1);
  });
});
