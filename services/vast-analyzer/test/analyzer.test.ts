import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOutboundPolicy, OutboundError, silentLogger, staticHostResolver, type OutboundPolicy } from "@cva/platform";
import { TestOutcome } from "@cva/contracts";
import { evaluateVast } from "@cva/spec-sets";
import { describeUnreachable, tlsReason } from "../src/unreachable.ts";
import { createVastAnalyzer, PLAYER_ORIGIN, VastInputError } from "../src/index.ts";
import { closedPort, fakeProbe, inlineVast, startFixtureServer, vastJob, wrapperVast, type FixtureServer } from "./fixtures.ts";

const loopback = createOutboundPolicy(["127.0.0.0/8", "::1/128"]);

let srv: FixtureServer;
beforeAll(async () => {
  srv = await startFixtureServer();
  srv.route("/pixel", (_req, res) => res.writeHead(200, { "content-type": "image/gif" }).end("GIF89a"));
});
afterAll(async () => {
  await srv.close();
});

function analyzer(probe = fakeProbe(), limits = {}) {
  return createVastAnalyzer({ policy: loopback, probe: probe.probe, location: "usa", logger: silentLogger(), limits });
}

describe("inline VAST", () => {
  it("reports the declared fields exactly", async () => {
    const probe = fakeProbe();
    srv.xml(
      "/inline.xml",
      inlineVast({
        version: "3.0",
        title: "Summer Sale",
        system: "AcmeAds",
        impressions: [srv.url("/pixel?i=inline")],
        media: [srv.url("/media/a.mp4"), srv.url("/media/b.mp4")],
        duration: "00:00:15.500",
        clickThrough: "https://advertiser.example/landing",
      }),
    );
    const report = await analyzer(probe).analyze(vastJob(srv.url("/inline.xml"), "job-1"));
    expect(report.errors).toEqual([]);
    expect(report.type).toBe("inline");
    expect(report.vastVersion).toBe("3.0");
    expect(report.adSystem).toBe("AcmeAds");
    expect(report.adTitle).toBe("Summer Sale");
    expect(report.jobId).toBe("job-1");
    expect(report.vastUrl).toBe(srv.url("/inline.xml"));
    expect(report.wrapperRedirects).toBe(0);
    expect(report.xml?.httpCode).toBe(200);
    expect(report.xml?.contentType).toBe("application/xml");
    expect(Number(report.xml?.fileSize)).toBe(report.xml?.data.length);
    expect(new TextDecoder().decode(report.xml?.data)).toContain("Summer Sale");
    expect(report.creatives).toHaveLength(1);
    const c = report.creatives[0]!;
    expect(c.duration).toBe("00:00:15.500");
    expect(c.skipOffset).toBeUndefined();
    expect(c.clickThroughUrl).toBe("https://advertiser.example/landing");
    expect(c.id).toBe("cr-1");
    expect(c.adId).toBe("adid-1");
    expect(c.mediafiles).toHaveLength(2);
    const a = c.mediafiles[0]!.attributes!;
    expect({ ...a, $typeName: undefined }).toEqual({
      $typeName: undefined,
      bitrate: 500,
      delivery: "progressive",
      height: 360,
      maintainaspectratio: "true",
      scalable: "true",
      type: "video/mp4",
      width: 640,
      codec: "avc1.42E01E",
      apiFramework: "",
      id: "m0",
    });
    expect(c.mediafiles[0]!.probe?.url).toBe(srv.url("/media/a.mp4"));
    expect(probe.calls.map((p) => p.url).sort()).toEqual([srv.url("/media/a.mp4"), srv.url("/media/b.mp4")]);
    expect(probe.calls[0]!.declared?.width).toBe(640);
    // Screenshot: the first media file's stored frames.
    expect(report.screenshot?.highres?.id).toBe(`ff:${srv.url("/media/a.mp4")}`);
    expect(report.screenshot?.thumbnail?.id).toBe(`th:${srv.url("/media/a.mp4")}`);
    expect(report.impressionPixels).toEqual([srv.url("/pixel?i=inline")]);
    expect(srv.hits).toContain("/pixel?i=inline");
    // Meta.
    expect(report.meta?.apiVersion).toBe("v3");
    expect(report.meta?.device).toBe("Desktop");
    expect(report.meta?.serverLocation).toBe("usa");
    expect(report.meta?.language).toBe("en-US");
    expect(report.meta?.ua).toMatch(/Mozilla/);
    expect(report.meta?.cpu).not.toBe("");
    expect(report.meta?.timestamp).toBeGreaterThan(1_600_000_000n);
    // SSL: everything on the fixture is http; the click-through (https, and never loaded) is not listed.
    expect(report.ssl?.compliant).toBe(false);
    expect(report.ssl?.insecureUrls).toEqual(
      expect.arrayContaining([srv.url("/inline.xml"), srv.url("/pixel?i=inline"), srv.url("/media/a.mp4"), "http://tracker.invalid/start"]),
    );
    expect(report.ssl?.insecureUrls.some((u) => u.includes("advertiser.example"))).toBe(false);
    expect(report.scanResults).toBeUndefined();
  });

  it("reads VAST 4.1", async () => {
    srv.xml("/v41.xml", inlineVast({ version: "4.1", media: [srv.url("/media/c.mp4")] }));
    const report = await analyzer().analyze(vastJob(srv.url("/v41.xml")));
    expect(report.vastVersion).toBe("4.1");
    expect(report.type).toBe("inline");
    expect(report.creatives[0]!.mediafiles).toHaveLength(1);
  });

  it("computes skip_offset from a time and from a percentage", async () => {
    srv.xml("/skip-time.xml", inlineVast({ skip: "00:00:05", duration: "00:00:30" }));
    srv.xml("/skip-pct.xml", inlineVast({ skip: "25%", duration: "00:00:20" }));
    const a = await analyzer().analyze(vastJob(srv.url("/skip-time.xml")));
    const b = await analyzer().analyze(vastJob(srv.url("/skip-pct.xml")));
    expect(a.creatives[0]!.skipOffset).toBe(5);
    expect(b.creatives[0]!.skipOffset).toBe(5);
  });

  it("probes a media file that answers 404 (the prober reports it)", async () => {
    const probe = fakeProbe({ httpCode: (u) => (u.endsWith("/missing.mp4") ? 404 : 200) });
    srv.xml("/media404.xml", inlineVast({ media: [srv.url("/media/missing.mp4")] }));
    const report = await analyzer(probe).analyze(vastJob(srv.url("/media404.xml")));
    expect(probe.calls.map((c) => c.url)).toEqual([srv.url("/media/missing.mp4")]);
    expect(report.creatives[0]!.mediafiles[0]!.probe?.httpCode).toBe(404);
    expect(report.screenshot).toBeUndefined();
  });

  it("turns a probe that throws into a media error, not a failed scan", async () => {
    srv.xml("/probe-throws.xml", inlineVast({ media: [srv.url("/media/x.mp4")] }));
    const report = await createVastAnalyzer({
      policy: loopback,
      location: "usa",
      probe: async () => {
        throw new Error("no worker resources at 10.1.2.3");
      },
    }).analyze(vastJob(srv.url("/probe-throws.xml")));
    const p = report.creatives[0]!.mediafiles[0]!.probe!;
    expect(p.error).toBe("the media file could not be probed");
    // The scan failed, not the file: tests report "not evaluated" rather than a failure; nothing was downloaded, so
    // status, size and speed are not measured (never a 0 that looks like one).
    expect(p.notProbed).toBe(true);
    expect(p.notMeasured).toEqual(["http_code", "file_size", "download_speed", "file_info", "poster", "film_strip", "audio_wave"]);
    expect(p.url).toBe(srv.url("/media/x.mp4"));
  });
});

describe("CORS", () => {
  it("is false without CORS headers", async () => {
    srv.xml("/nocors.xml", inlineVast());
    expect((await analyzer().analyze(vastJob(srv.url("/nocors.xml")))).cors).toBe(false);
  });
  it("is true when the origin is echoed with credentials allowed (VAST 3 §2.1.5.2)", async () => {
    srv.route("/cors.xml", (req, res) =>
      res
        .writeHead(200, {
          "content-type": "text/xml",
          "access-control-allow-origin": String(req.headers.origin ?? ""),
          "access-control-allow-credentials": "true",
        })
        .end(inlineVast()),
    );
    const report = await analyzer().analyze(vastJob(srv.url("/cors.xml")));
    expect(report.cors).toBe(true);
  });
  it("is false for a wildcard origin, even with credentials", async () => {
    srv.xml("/cors-star.xml", inlineVast(), { "access-control-allow-origin": "*", "access-control-allow-credentials": "true" });
    expect((await analyzer().analyze(vastJob(srv.url("/cors-star.xml")))).cors).toBe(false);
  });
  it("is false when credentials are not allowed", async () => {
    srv.xml("/cors-nocred.xml", inlineVast(), { "access-control-allow-origin": PLAYER_ORIGIN });
    expect((await analyzer().analyze(vastJob(srv.url("/cors-nocred.xml")))).cors).toBe(false);
  });
});

describe("wrapper chains", () => {
  it("follows a 2-deep chain, merges and fires every impression", async () => {
    srv.xml("/chain/inline.xml", inlineVast({ impressions: [srv.url("/pixel?i=c-inline")], title: "Chained", system: "InlineAds" }));
    // Relative URI: resolved against the wrapper's own URL.
    srv.xml("/chain/w2.xml", wrapperVast("inline.xml", [srv.url("/pixel?i=c-w2")]));
    srv.xml("/chain/w1.xml", wrapperVast(srv.url("/chain/w2.xml"), [srv.url("/pixel?i=c-w1")], "2.0"));
    const report = await analyzer().analyze(vastJob(srv.url("/chain/w1.xml")));
    // The fixture's Linear has no MediaFile: the only problem, and said as such.
    expect(report.errors).toEqual(["creative 0 (Linear) has no MediaFile: a player has nothing to play"]);
    expect(report.type).toBe("wrapper");
    expect(report.vastVersion).toBe("2.0");
    expect(report.wrapperRedirects).toBe(2);
    expect(report.adTitle).toBe("Chained");
    expect(report.adSystem).toBe("InlineAds");
    expect(report.impressionPixels).toEqual([srv.url("/pixel?i=c-w1"), srv.url("/pixel?i=c-w2"), srv.url("/pixel?i=c-inline")]);
    for (const i of ["c-w1", "c-w2", "c-inline"]) expect(srv.hits).toContain(`/pixel?i=${i}`);
    expect(report.ssl?.insecureUrls).toEqual(expect.arrayContaining([srv.url("/chain/w2.xml"), srv.url("/chain/inline.xml"), "http://tracker.invalid/w-start"]));
    expect(report.wrapperChain.map((h) => [h.url, h.type, h.httpCode, h.vastVersion, h.error])).toEqual([
      [srv.url("/chain/w1.xml"), "wrapper", 200, "2.0", ""],
      [srv.url("/chain/w2.xml"), "wrapper", 200, "3.0", ""],
      [srv.url("/chain/inline.xml"), "inline", 200, "3.0", ""],
    ]);
    const chain = evaluateVast(report, 0).tests.find((t) => t.test === "wrapper_chain")!;
    expect([chain.result, chain.message]).toEqual([TestOutcome.PASSED, expect.stringContaining("2 wrapper hop(s) to an inline ad")]);
  });

  it("detects a wrapper that points at itself", async () => {
    srv.xml("/self.xml", wrapperVast("self.xml", [srv.url("/pixel?i=self")]));
    const report = await analyzer().analyze(vastJob(srv.url("/self.xml")));
    expect(report.type).toBe("wrapper");
    expect(report.wrapperRedirects).toBe(0);
    expect(report.errors.join("\n")).toMatch(/wrapper loop/);
    expect(report.impressionPixels).toEqual([]);
    expect(srv.hits.filter((h) => h === "/self.xml")).toHaveLength(1);
  });

  it("detects a longer loop", async () => {
    srv.xml("/loop-a.xml", wrapperVast(srv.url("/loop-b.xml")));
    srv.xml("/loop-b.xml", wrapperVast(srv.url("/loop-a.xml#frag")));
    const report = await analyzer().analyze(vastJob(srv.url("/loop-a.xml")));
    expect(report.wrapperRedirects).toBe(1);
    expect(report.errors.join("\n")).toMatch(/wrapper loop/);
  });

  it("stops after 5 wrapper redirects", async () => {
    for (let i = 0; i < 7; i++) srv.xml(`/deep/w${i}.xml`, wrapperVast(`w${i + 1}.xml`));
    srv.xml("/deep/w7.xml", inlineVast());
    const report = await analyzer().analyze(vastJob(srv.url("/deep/w0.xml")));
    expect(report.wrapperRedirects).toBe(5);
    expect(report.errors.join("\n")).toMatch(/too many wrapper redirects/);
    expect(srv.hits).toContain("/deep/w5.xml");
    expect(srv.hits).not.toContain("/deep/w6.xml");
    expect(report.creatives).toEqual([]);
  });

  it("reports a wrapper target refused by the outbound policy, without throwing", async () => {
    srv.xml("/to-private.xml", wrapperVast("http://10.0.0.1/vast.xml"));
    const report = await analyzer().analyze(vastJob(srv.url("/to-private.xml")));
    expect(report.type).toBe("wrapper");
    expect(report.errors.join("\n")).toMatch(/outbound policy/);
  });
});

describe("failures reported in the report", () => {
  it("malformed XML", async () => {
    srv.xml("/malformed.xml", "<VAST version='3.0'><Ad><InLine></Ad></VAST>");
    const report = await analyzer().analyze(vastJob(srv.url("/malformed.xml")));
    expect(report.type).toBe("invalid");
    expect(report.xml?.httpCode).toBe(200);
    expect(report.errors.join("\n")).toMatch(/malformed XML/);
  });

  it("a 404 VAST URL", async () => {
    const report = await analyzer().analyze(vastJob(srv.url("/nope.xml")));
    expect(report.xml?.httpCode).toBe(404);
    expect(report.type).toBe("unavailable");
    expect(report.errors.join("\n")).toMatch(/HTTP 404/);
    expect(report.notMeasured).toEqual([]);
  });

  it("a 3 MB document (size cap)", async () => {
    const big = `<VAST version="3.0"><!--${"x".repeat(3 * 1024 * 1024)}--></VAST>`;
    srv.xml("/big.xml", big);
    srv.route("/big-chunked.xml", (_req, res) => {
      res.writeHead(200, { "content-type": "application/xml" });
      res.write(big.slice(0, 1024 * 1024));
      res.write(big.slice(1024 * 1024, 2 * 1024 * 1024));
      res.end(big.slice(2 * 1024 * 1024));
    });
    for (const p of ["/big.xml", "/big-chunked.xml"]) {
      const report = await analyzer().analyze(vastJob(srv.url(p)));
      expect(report.type).toBe("invalid");
      expect(report.errors.join("\n")).toMatch(/exceeds the limit of 2097152 bytes/);
    }
  });

  it("an empty VAST (no ad) and a root <Error>", async () => {
    srv.xml("/empty.xml", `<VAST version="4.0"/>`);
    srv.xml("/empty-error.xml", `<VAST version="4.3"><Error><![CDATA[http://example.com/e]]></Error></VAST>`);
    const a = await analyzer().analyze(vastJob(srv.url("/empty.xml")));
    const b = await analyzer().analyze(vastJob(srv.url("/empty-error.xml")));
    expect(a.type).toBe("empty");
    expect(a.vastVersion).toBe("4.0");
    expect(b.type).toBe("empty");
    expect(b.errors.join("\n")).toMatch(/no ad/);
  });
});

describe("hostile input", () => {
  it.each([
    "http://169.254.169.254/latest/meta-data/",
    "http://10.0.0.1/vast.xml",
    "http://[::ffff:169.254.169.254]/vast.xml",
    "ftp://127.0.0.1/vast.xml",
    "not a url",
  ])("refuses %s with a VastInputError", async (url) => {
    const err = await analyzer().analyze(vastJob(url)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(VastInputError);
    expect((err as Error).message).toMatch(/^data: the VAST URL/);
  });

  it("refuses loopback without the allowlist", async () => {
    const strict = createVastAnalyzer({ policy: createOutboundPolicy([]), probe: fakeProbe().probe, location: "usa" });
    const err = await strict.analyze(vastJob(srv.url("/inline.xml"))).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(VastInputError);
    expect((err as Error).message).toMatch(/outbound policy/);
  });

  it("refuses a VAST URL on a port other than 80/443 of a public host, naming it, as it refuses a blocked host", async () => {
    // mail.example is public: the refusal comes from the port, before any connection.
    const policy = createOutboundPolicy(["127.0.0.0/8"], { resolve: staticHostResolver({ "mail.example": "93.184.216.34" }) });
    const strict = createVastAnalyzer({ policy, probe: fakeProbe().probe, location: "usa" });
    const err = await strict.analyze(vastJob("http://mail.example:25/vast.xml")).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(VastInputError);
    expect((err as Error).message).toBe("data: the VAST URL is refused by the outbound policy: port 25 of mail.example is not allowed (ports 80, 443 only)");
  });

  it("refuses an HTTP redirect to a private address", async () => {
    srv.route("/redirect-private", (_req, res) => res.writeHead(302, { location: "http://10.0.0.1/vast.xml" }).end());
    srv.route("/redirect-metadata", (_req, res) => res.writeHead(302, { location: "http://169.254.169.254/" }).end());
    for (const p of ["/redirect-private", "/redirect-metadata"]) {
      const err = await analyzer().analyze(vastJob(srv.url(p))).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(VastInputError);
      expect((err as Error).message).toMatch(/outbound policy/);
    }
  });

  it("refuses billion laughs and external entities (DOCTYPE)", async () => {
    const laughs = `<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>
<VAST version="3.0"><Ad><InLine><AdTitle>&lol3;</AdTitle></InLine></Ad></VAST>`;
    const xxe = `<?xml version="1.0"?><!DOCTYPE foo [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
<VAST version="3.0"><Ad><InLine><AdTitle>&xxe;</AdTitle></InLine></Ad></VAST>`;
    srv.xml("/laughs.xml", laughs);
    srv.xml("/xxe.xml", xxe);
    for (const p of ["/laughs.xml", "/xxe.xml"]) {
      const report = await analyzer().analyze(vastJob(srv.url(p)));
      expect(report.type).toBe("invalid");
      expect(report.adTitle).toBe("");
      expect(report.errors.join("\n")).toMatch(/DOCTYPE/);
    }
  });

  it("refuses 100 000 nested elements without crashing", async () => {
    srv.xml("/nested.xml", `<VAST version="3.0">${"<a>".repeat(100_000)}${"</a>".repeat(100_000)}</VAST>`);
    const report = await analyzer().analyze(vastJob(srv.url("/nested.xml")));
    expect(report.type).toBe("invalid");
    expect(report.errors.join("\n")).toMatch(/deeper than 64/);
  });

  it("refuses too many elements", async () => {
    srv.xml("/wide.xml", `<VAST version="3.0">${"<a/>".repeat(30_000)}</VAST>`);
    const report = await analyzer().analyze(vastJob(srv.url("/wide.xml")));
    expect(report.errors.join("\n")).toMatch(/more than 20000 elements/);
  });

  it("keeps only the five XML entities and character references", async () => {
    srv.xml("/entities.xml", inlineVast({ title: "]]>A &amp;amp; B<![CDATA[" }).replace("<AdSystem version=\"1.0\">FixtureAds", "<AdSystem>Fix&#116;ure &lt;Ads&gt; &nbsp;"));
    const report = await analyzer().analyze(vastJob(srv.url("/entities.xml")));
    expect(report.errors).toEqual(["creative 0 (Linear) has no MediaFile: a player has nothing to play"]);
    expect(report.adSystem).toBe("Fixture <Ads> &nbsp;");
    expect(report.adTitle).toBe("A &amp; B");
  });
});

// A VAST URL nothing answers is a payload_error that says where and why; the same failure on a wrapper hop is a report
// whose wrapper_chain (and errors) say which hop failed and why.
describe("unreachable VAST URLs", () => {
  const named = (hosts: Record<string, string>, resolve?: OutboundPolicy["resolve"]): OutboundPolicy => ({
    check: (ip) => loopback.check(ip),
    describe: () => loopback.describe(),
    resolve: resolve ?? staticHostResolver(hosts),
  });
  const never: OutboundPolicy["resolve"] = () => new Promise(() => {});
  let hanging: FixtureServer;
  let plainPort: number;
  beforeAll(async () => {
    hanging = await startFixtureServer(() => {
      /* never answers */
    });
    plainPort = Number(new URL(srv.origin).port);
  });
  afterAll(async () => {
    await hanging.close();
  });

  // [case, URL, policy, limits, message]
  const cases = async (): Promise<Array<[string, string, OutboundPolicy, Record<string, number>, RegExp]>> => [
    ["a host that does not resolve", "http://ads.example/vast.xml", named({}), {}, /^data: the VAST URL could not be loaded: DNS lookup of ads\.example failed: no such host \(ENOTFOUND\)$/],
    ["a refused connection", `http://127.0.0.1:${await closedPort()}/vast.xml`, loopback, {}, /^data: the VAST URL could not be loaded: connection to 127\.0\.0\.1:\d+ refused \(ECONNREFUSED\)$/],
    ["a connection that times out", "http://slow-dns.example/vast.xml", named({}, never), { connectTimeoutMs: 300 }, /^data: the VAST URL could not be loaded: connection to slow-dns\.example:80 timed out after 0\.3 s$/],
    ["a server that never answers", hanging.url("/slow.xml"), loopback, { fetchTimeoutMs: 300 }, /^data: the VAST URL could not be loaded: 127\.0\.0\.1:\d+ did not answer within 0\.3 s$/],
    ["a TLS handshake that fails", `https://127.0.0.1:${plainPort}/vast.xml`, loopback, {}, /^data: the VAST URL could not be loaded: TLS handshake with 127\.0\.0\.1:\d+ failed: wrong version number$/],
  ];

  it("answers payload_error naming the host and the cause for the first URL", async () => {
    for (const [name, url, policy, limits, message] of await cases()) {
      const a = createVastAnalyzer({ policy, probe: fakeProbe().probe, location: "usa", logger: silentLogger(), limits });
      const err = await a.analyze(vastJob(url)).catch((e: unknown) => e);
      expect(err, name).toBeInstanceOf(VastInputError);
      expect((err as Error).message, name).toMatch(message);
    }
  });

  it("reports which wrapper hop failed and why", async () => {
    for (const [name, url, policy, limits, message] of await cases()) {
      srv.xml("/to-unreachable.xml", wrapperVast(url, [srv.url("/pixel?w=unreachable")]));
      const a = createVastAnalyzer({ policy, probe: fakeProbe().probe, location: "usa", logger: silentLogger(), limits });
      const report = await a.analyze(vastJob(srv.url("/to-unreachable.xml")));
      expect(report.type, name).toBe("wrapper");
      expect(report.wrapperChain.map((h) => [h.type, h.httpCode]), name).toEqual([["wrapper", 200], ["unavailable", 0]]);
      const why = message.source.replace("^data: the VAST URL could not be loaded: ", "");
      expect(report.wrapperChain[1]!.error, name).toMatch(new RegExp(`^wrapper target 1 ${url.replace(/[.?]/g, "\\$&")} could not be fetched: ${why}`));
      expect(report.wrapperChain[0]!.error, name).toBe("");
      expect(report.errors, name).toContain(report.wrapperChain[1]!.error);
      // The spec-set test says the same, as a failed result.
      const result = evaluateVast(report, 0).tests.find((t) => t.test === "wrapper_chain")!;
      expect(result.result, name).toBe(TestOutcome.FAILED);
      expect(result.message, name).toContain(`the chain stops at hop 1 (${url}): ${report.wrapperChain[1]!.error}`);
    }
  });

  it("words certificate failures and keeps library paths out of the message", () => {
    expect(tlsReason("self-signed certificate")).toBe("self-signed certificate");
    expect(tlsReason("80:error:0A000086:SSL routines:tls_post_process_server_certificate:certificate verify failed:../deps/openssl/ssl/statem.c:2091:")).toBe("certificate verify failed");
    expect(describeUnreachable(new OutboundError("connection", "TLS handshake with ads.example:443 failed: certificate has expired")))
      .toBe("TLS handshake with ads.example:443 failed: certificate has expired");
    expect(describeUnreachable(new OutboundError("dns", "could not resolve host ads.example (ETIMEOUT)")))
      .toBe("DNS lookup of ads.example failed: the name server did not answer in time (ETIMEOUT)");
  });

  it("still reports a VAST URL that answered with an HTTP error", async () => {
    const report = await analyzer().analyze(vastJob(srv.url("/nope.xml")));
    expect(report.xml?.httpCode).toBe(404);
    expect(report.type).toBe("unavailable");
    expect(report.wrapperChain.map((h) => [h.httpCode, h.error])).toEqual([[404, `VAST document ${srv.url("/nope.xml")} answered HTTP 404 Not Found`]]);
  });
});
