// Open Measurement verification resources, judged per Verification: the script is fetched (as an OM SDK loads it; it
// is not a tracker) from a fixture server under named hosts mapped to loopback. The https verification host is served
// over http by the rewriteUrl test seam: what is judged is the URL as written in the VAST.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TestOutcome } from "@cva/contracts";
import { createOutboundPolicy, silentLogger, staticHostResolver } from "@cva/platform";
import { evaluateVast } from "@cva/spec-sets";
import { createVastAnalyzer } from "../src/index.ts";
import { isJavaScriptMime } from "../src/verification-scripts.ts";
import { fakeProbe, startFixtureServer, vastJob, type FixtureServer } from "./fixtures.ts";

let srv: FixtureServer;
let port = "";
const PARAMS = `<VerificationParameters><![CDATA[{"campaign":"c1"}]]></VerificationParameters>`;
const js = (type: string, body = "window.omidVerification = 1;") => (_req: unknown, res: import("node:http").ServerResponse) =>
  void res.writeHead(200, { "content-type": type }).end(body);

function vast(verifications: string): string {
  return `<VAST version="4.2"><Ad id="a"><InLine><AdSystem>T</AdSystem><AdTitle>t</AdTitle><AdServingId>s</AdServingId>
<Impression><![CDATA[http://vast.adserver.test:${port}/imp]]></Impression>
<AdVerifications>${verifications}</AdVerifications>
<Creatives><Creative><UniversalAdId idRegistry="ad-id.org">X</UniversalAdId><Linear><Duration>00:00:15</Duration>
<MediaFiles><MediaFile delivery="progressive" type="video/mp4" width="640" height="360"><![CDATA[http://vast.adserver.test:${port}/ad.mp4]]></MediaFile></MediaFiles>
</Linear></Creative></Creatives></InLine></Ad></VAST>`;
}

beforeAll(async () => {
  srv = await startFixtureServer();
  port = new URL(srv.origin).port;
  srv.route("/omid/good.js", js("application/javascript; charset=utf-8"));
  srv.route("/omid/text.js", js("text/javascript"));
  srv.route("/omid/html.js", js("text/html", "<html></html>"));
  srv.route("/omid/empty.js", js("application/javascript", ""));
  srv.route("/omid/gone.js", (_req, res) => void res.writeHead(404, { "content-type": "text/plain" }).end("gone"));
});
afterAll(() => srv.close());

const policy = () => createOutboundPolicy(["127.0.0.0/8"], { resolve: staticHostResolver({ "vast.adserver.test": "127.0.0.1", "verify.vendor.test": "127.0.0.1" }) });
// https://verify.vendor.test/… is fetched from the plain fixture server (the URL as written is still https).
const rewriteUrl = (u: string) => u.replace(/^https:\/\/verify\.vendor\.test\//, `http://verify.vendor.test:${port}/`);

async function scan(verifications: string) {
  srv.xml("/vast.xml", vast(verifications));
  const analyzer = createVastAnalyzer({ policy: policy(), probe: fakeProbe().probe, location: "usa", logger: silentLogger(), rewriteUrl });
  return analyzer.analyze(vastJob(`http://vast.adserver.test:${port}/vast.xml`));
}

describe("Open Measurement verifications", () => {
  it("a usable verification: https, reachable, JavaScript, with parameters — and the om_verifications test passes", async () => {
    const r = await scan(`<Verification vendor="vendor.test-omid"><JavaScriptResource apiFramework="omid" browserOptional="true"><![CDATA[https://verify.vendor.test/omid/good.js]]></JavaScriptResource>${PARAMS}</Verification>`);
    expect(r.ads[0]!.verifications).toHaveLength(1);
    expect(r.ads[0]!.verifications[0]).toMatchObject({
      vendor: "vendor.test-omid", javascriptResourceUrl: "https://verify.vendor.test/omid/good.js", apiFramework: "omid",
      hasParameters: true, https: true, checked: true, reachable: true, httpCode: 200, contentType: "application/javascript; charset=utf-8", javascriptMime: true, problems: [],
    });
    expect(srv.hits.filter((h) => h.startsWith("/omid/"))).toEqual(["/omid/good.js"]);
    const t = evaluateVast(r, 0).tests.find((x) => x.test === "om_verifications")!;
    expect(t).toMatchObject({ result: TestOutcome.PASSED, actual: 0 });
    expect(t.message).toContain("1 verification");
  });

  it("each fault is named per verification: http, not JavaScript, no parameters, 404, empty, no resource", async () => {
    const hitsBefore = srv.hits.length;
    const r = await scan([
      `<Verification vendor="a"><JavaScriptResource apiFramework="omid"><![CDATA[http://verify.vendor.test:${port}/omid/text.js]]></JavaScriptResource></Verification>`,
      `<Verification vendor="b"><JavaScriptResource apiFramework="omid"><![CDATA[https://verify.vendor.test/omid/html.js]]></JavaScriptResource>${PARAMS}</Verification>`,
      `<Verification vendor="c"><JavaScriptResource apiFramework="omid"><![CDATA[https://verify.vendor.test/omid/gone.js]]></JavaScriptResource>${PARAMS}</Verification>`,
      `<Verification vendor="d"><JavaScriptResource apiFramework="omid"><![CDATA[https://verify.vendor.test/omid/empty.js]]></JavaScriptResource>${PARAMS}</Verification>`,
      `<Verification vendor="e">${PARAMS}</Verification>`,
      // The same script twice is fetched once.
      `<Verification vendor="f"><JavaScriptResource apiFramework="omid"><![CDATA[https://verify.vendor.test/omid/gone.js]]></JavaScriptResource>${PARAMS}</Verification>`,
    ].join(""));
    const [a, b, c, d, e, f] = r.ads[0]!.verifications;
    expect(a).toMatchObject({ https: false, hasParameters: false, checked: true, reachable: true, httpCode: 200, javascriptMime: true });
    expect(a!.problems).toEqual(["the JavaScriptResource is not https: an OM SDK on an https page cannot load it", "no VerificationParameters: the vendor's script is given nothing to measure with"]);
    expect(b).toMatchObject({ https: true, hasParameters: true, reachable: true, contentType: "text/html", javascriptMime: false });
    expect(b!.problems).toEqual(['the script is served as "text/html", not a JavaScript MIME type: a browser refuses to run it when it is sent with X-Content-Type-Options: nosniff']);
    expect(c).toMatchObject({ checked: true, reachable: false, httpCode: 404, javascriptMime: false, problems: ["the script answered HTTP 404"] });
    expect(d).toMatchObject({ checked: true, reachable: false, httpCode: 200, problems: ["the script is empty"] });
    expect(e).toMatchObject({ javascriptResourceUrl: "", checked: false, problems: ["the Verification has no JavaScriptResource URL: there is no script to load"] });
    expect(f).toMatchObject({ httpCode: 404, problems: ["the script answered HTTP 404"] });
    expect(srv.hits.slice(hitsBefore).filter((h) => h.startsWith("/omid/")).sort()).toEqual(["/omid/empty.js", "/omid/gone.js", "/omid/html.js", "/omid/text.js"]);
    const t = evaluateVast(r, 0).tests.find((x) => x.test === "om_verifications")!;
    expect(t).toMatchObject({ result: TestOutcome.FAILED, actual: 6 });
    expect(t.message).toContain("6 verifications");
    expect(t.message).toContain("a (http://verify.vendor.test");
  });

  // (The fake media probe measures nothing, so only the document's own tests are counted here.)
  it("without AdVerifications the test is not listed; the xml tests are all passed or failed", async () => {
    const r = await scan("");
    expect(r.ads[0]!.verifications).toEqual([]);
    const results = evaluateVast(r, 0);
    expect(results.tests.map((t) => t.test)).not.toContain("om_verifications");
    const xml = results.tests.filter((t) => t.group === "xml");
    expect(xml.length).toBeGreaterThan(10);
    expect(xml.filter((t) => t.result !== TestOutcome.PASSED && t.result !== TestOutcome.FAILED).map((t) => `${t.test}: ${t.message}`)).toEqual([]);
  });

  it("JavaScript MIME types are matched on their essence", () => {
    for (const t of ["text/javascript", "application/javascript; charset=UTF-8", "Application/X-JavaScript", "text/ecmascript"]) expect(isJavaScriptMime(t), t).toBe(true);
    for (const t of ["", "text/plain", "application/json", "text/html", "application/octet-stream"]) expect(isJavaScriptMime(t), t).toBe(false);
  });
});
