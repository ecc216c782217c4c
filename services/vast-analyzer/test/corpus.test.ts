import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createOutboundPolicy, silentLogger } from "@cva/platform";
import { describeWithCorpus } from "@cva/platform/testing/index.ts";
import { createVastAnalyzer, type VastAnalyzer } from "../src/index.ts";
import { IMA, JONHOO, listXml, readBelow, vastDir } from "./corpus-fixture.ts";
import { fakeProbe, startFixtureServer, vastJob, type FakeProbe, type FixtureServer } from "./fixtures.ts";

describeWithCorpus("VAST corpus", "vast", () => {
  let srv: FixtureServer;
  let probe: FakeProbe;
  let analyzer: VastAnalyzer;

  beforeAll(async () => {
    // Serves corpus/vast read-only at the root. jonhoo-vast-vmap's URIs ("./test/assets/...") are relative to its
    // folder, not to the document: the part from the last "test/assets/" on is served from that folder. Anything
    // that is not a corpus file (pixels, stand-in hosts) answers 204, so nothing leaves the machine.
    srv = await startFixtureServer((req, res) => {
      const urlPath = decodeURIComponent((req.url ?? "/").split("?")[0] ?? "/");
      let file: Buffer | undefined;
      if (urlPath.startsWith(`/${JONHOO}/`)) {
        const at = urlPath.lastIndexOf("test/assets/");
        if (at >= 0) file = readBelow(path.join(vastDir, JONHOO), urlPath.slice(at));
      } else if (!urlPath.startsWith("/_external/")) {
        file = readBelow(vastDir, urlPath.slice(1));
      }
      if (file) res.writeHead(200, { "content-type": "application/xml" }).end(file);
      else if (urlPath.startsWith("/_external/")) res.writeHead(204).end();
      else res.writeHead(404).end();
    });
    probe = fakeProbe();
    analyzer = createVastAnalyzer({
      policy: createOutboundPolicy(["127.0.0.0/8", "::1/128"]),
      probe: probe.probe,
      location: "usa",
      logger: silentLogger(),
      limits: { pixelTimeoutMs: 2000, fetchTimeoutMs: 5000 },
      // corpus/README.md §1 "Where URLs inside the VAST point": localhost:8000 is the IMA folder; every other
      // foreign URL goes to the fixture server's stand-in.
      rewriteUrl: (u) => {
        if (u.startsWith(srv.origin)) return u;
        if (u.startsWith("http://localhost:8000/")) return srv.url(`/${IMA}/${u.slice("http://localhost:8000/".length)}`);
        return srv.url(`/_external/${encodeURIComponent(u)}`);
      },
    });
  });
  afterAll(async () => {
    await srv.close();
  });

  const analyze = (rel: string) => analyzer.analyze(vastJob(srv.url(`/${rel}`)));

  it.each([
    ["iab-vast-samples/vast-1-2.0/Inline_LinearRegular_VAST2.0.xml", "2.0", "2.0", "5748406", 1],
    ["iab-vast-samples/vast-3.0/Inline_Linear_Tag-test.xml", "3.0", "iabtechlab", "iabtechlab video ad", 1],
    ["iab-vast-samples/vast-4.0/Inline_Linear_Tag-test.xml", "4.0", "iabtechlab", "iabtechlab video ad", 3],
    ["iab-vast-samples/vast-4.1/Inline_Linear_Tag-test.xml", "4.1", "iabtechlab", "iabtechlab video ad", 3],
    ["iab-vast-samples/vast-4.2/Inline_Linear_Tag-test.xml", "4.2", "iabtechlab", "iabtechlab video ad", 3],
  ])("IAB sample %s", async (rel, version, system, title, mediaCount) => {
    const r = await analyze(rel);
    expect(r.type).toBe("inline");
    expect(r.vastVersion).toBe(version);
    expect(r.adSystem).toBe(system);
    expect(r.adTitle).toBe(title);
    expect(r.creatives[0]?.mediafiles).toHaveLength(mediaCount);
    expect(r.creatives[0]?.duration).toMatch(/^00:00:(16|30)$/);
  });

  it("IAB 4.1 media file attributes as declared", async () => {
    const r = await analyze("iab-vast-samples/vast-4.1/Inline_Linear_Tag-test.xml");
    const mf = r.creatives[0]!.mediafiles.map((m) => m.attributes!);
    expect(mf.map((a) => [a.id, a.width, a.height, a.bitrate, a.type, a.delivery, a.codec, a.scalable, a.maintainaspectratio])).toEqual([
      ["5241", 1280, 720, 2000, "video/mp4", "progressive", "H.264", "1", "1"],
      ["5244", 854, 480, 1000, "video/mp4", "progressive", "H.264", "1", "1"],
      ["5246", 640, 360, 600, "video/mp4", "progressive", "H.264", "1", "1"],
    ]);
    expect(r.creatives[0]!.mediafiles[0]!.probe?.url).toBe("https://iab-publicfiles.s3.amazonaws.com/vast/VAST-4.0-Short-Intro.mp4");
    expect(r.creatives[0]!.clickThroughUrl).toBe("https://iabtechlab.com/");
    expect(r.creatives[0]!.id).toBe("5480");
    expect(r.creatives[0]!.adId).toBe("2447226");
    expect(r.impressionPixels).toEqual(["https://example.com/track/impression"]);
    expect(r.ssl?.insecureUrls).toContain("http://example.com/tracking/progress-10");
  });

  it("IMA skippable linear: skip offset and local media", async () => {
    const r = await analyze(`${IMA}/test/webdriver/content/canned_ads/skippable_linear.xml`);
    expect(r.creatives[0]!.skipOffset).toBe(5);
    expect(r.creatives[0]!.duration).toBe("00:00:10");
    const urls = probe.calls.map((c) => c.url);
    expect(urls).toContain(srv.url(`/${IMA}/test/webdriver/content/canned_ads/media/long_linear_ad.mp4`));
  });

  it("dailymotion relative wrapper chain: 3 redirects to sample.xml", async () => {
    const r = await analyze("dailymotion-vast-client-js/wrapper-notracking.xml");
    expect(r.type).toBe("wrapper");
    expect(r.vastVersion).toBe("2.0");
    expect(r.wrapperRedirects).toBe(3);
    expect(r.adTitle).toBe("Ad title");
    expect(r.adSystem).toBe("AdServer");
    expect(r.creatives[0]!.duration).toBe("00:01:30.123");
    expect(r.impressionPixels[0]).toBe("http://example.com/wrapperNoTracking-impression");
    expect(r.impressionPixels).toContain("http://example.com/wrapperA-impression");
    // The relative VPAID media file resolves against sample.xml's URL.
    expect(r.creatives[0]!.mediafiles[1]!.probe?.url).toBe(srv.url("/dailymotion-vast-client-js/parser.js?adData=http%3A%2F%2Fad.com%2F%3Fcb%3D%5Btime%5D"));
  });

  it("dailymotion sample-wrapped: skip offset 25%", async () => {
    const r = await analyze("dailymotion-vast-client-js/sample-wrapped.xml");
    expect(r.errors.join("\n")).not.toMatch(/skipoffset/);
  });

  it("jonhoo captured production chain", async () => {
    const r = await analyze(`${JONHOO}/test/assets/vast_multiple_wrappers/vast_wrapper_entry.xml`);
    expect(r.type).toBe("wrapper");
    expect(r.wrapperRedirects).toBe(3);
    expect(r.adSystem).toBe("smartclip");
    expect(r.adTitle).toBe("FI - GSK Panadol Forte w48-51 / Gr. 1d, PostRoll");
    expect(r.creatives[0]!.duration).toBe("00:00:21");
    expect(r.impressionPixels.length).toBeGreaterThan(10);
    // URLs broken by newlines inside CDATA are joined (newlines dropped), spaces percent-encoded.
    expect(r.impressionPixels.every((u) => !/\s/.test(u))).toBe(true);
  });

  it("dm/invalid-xmlfile.xml is reported as malformed", async () => {
    const r = await analyze("dailymotion-vast-client-js/invalid-xmlfile.xml");
    expect(r.type).toBe("invalid");
    expect(r.errors.join("\n")).toMatch(/malformed XML/);
  });

  it("a chain that ends in malformed XML keeps the wrapper type and says what failed", async () => {
    const r = await analyze("dailymotion-vast-client-js/wrapper-invalid-xmlfile.xml");
    expect(r.type).toBe("wrapper");
    expect(r.errors.join("\n")).toMatch(/malformed XML/);
  });

  it("VMAP is reported clearly; VAST 1.0 is analysed like any inline ad", async () => {
    const vmap = await analyze(`${IMA}/test/webdriver/content/canned_ads/vmap_preroll.xml`);
    expect(vmap.type).toBe("vmap");
    expect(vmap.errors.join("\n")).toMatch(/VMAP/);
    const v1 = await analyze("dailymotion-vast-client-js/outdated-vast.xml");
    expect(v1.type).toBe("inline");
    expect(v1.vastVersion).toBe("1.0");
    expect(v1.creatives[0]?.mediafiles[0]?.attributes?.type).toBe("video/x-flv");
  });

  it("no-fill documents are reported as empty", async () => {
    for (const rel of ["dailymotion-vast-client-js/empty-no-ad.xml", "zentrick-iab-vast-loader/no-ads.xml", `${IMA}/test/webdriver/content/canned_ads/empty_vast.xml`]) {
      const r = await analyze(rel);
      expect(r.type, rel).toBe("empty");
    }
  });

  it("every corpus XML file analyzes without throwing", async () => {
    const files = listXml(vastDir);
    expect(files.length).toBeGreaterThan(150);
    const types = new Map<string, number>();
    for (const rel of files) {
      const r = await analyze(rel);
      types.set(r.type, (types.get(r.type) ?? 0) + 1);
      expect(["inline", "wrapper", "empty", "vmap", "vast1", "invalid", "unavailable"], rel).toContain(r.type);
      expect(r.xml?.httpCode, rel).toBe(200);
    }
    expect(types.get("inline") ?? 0).toBeGreaterThan(80);
  }, 180_000);
});
