// Tracker URLs checked without side effects: named hosts mapped to loopback (and one to a private address), an http
// tracker server, a TLS one with a self-signed certificate. Every host is connected to, no tracker receives a request.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer as createHttpServer, type Server } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TestOutcome } from "@cva/contracts";
import { createOutboundPolicy, silentLogger, staticHostResolver } from "@cva/platform";
import { evaluateVast } from "@cva/spec-sets";
import { createVastAnalyzer } from "../src/index.ts";
import { checkTrackers, DEFAULT_TRACKER_CHECKS, macroProblems } from "../src/trackers.ts";
import { readDocument } from "../src/vast-document.ts";
import { parseXmlDocument } from "../src/xml-tree.ts";
import { createScanBudget } from "../src/scan-budget.ts";
import { fakeProbe, vastJob } from "./fixtures.ts";

const requests: string[] = [];
const tlsRequests: string[] = [];
let tlsConnections = 0;
let http: Server;
let https: Server;
let dir: string;
const port = (s: Server) => (s.address() as AddressInfo).port;

let doc = "";
beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "cva-trackers-"));
  execFileSync("openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1",
    "-subj", "/CN=tls.adserver.net", "-keyout", path.join(dir, "key.pem"), "-out", path.join(dir, "cert.pem")], { stdio: "ignore" });
  http = createHttpServer((req, res) => {
    requests.push(req.url ?? "");
    if (req.url === "/vast.xml") return void res.writeHead(200, { "content-type": "application/xml" }).end(doc);
    res.writeHead(204).end();
  });
  https = createHttpsServer({ key: readFileSync(path.join(dir, "key.pem")), cert: readFileSync(path.join(dir, "cert.pem")) }, (req, res) => {
    tlsRequests.push(req.url ?? "");
    res.writeHead(204).end();
  });
  // Counted when the TCP connection is accepted: before the handshake whose certificate the client then rejects.
  https.on("connection", () => tlsConnections++);
  await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
  await new Promise<void>((r) => https.listen(0, "127.0.0.1", r));
  const T = `http://track.adserver.net:${port(http)}`;
  const S = `https://tls.adserver.net:${port(https)}`;
  doc = `<?xml version="1.0"?>
<VAST version="4.2"><Ad id="a"><InLine><AdSystem>T</AdSystem><AdTitle>t</AdTitle><AdServingId>s</AdServingId>
<Impression><![CDATA[${T}/imp]]></Impression>
<Error><![CDATA[https://staging.adserver.net/error?c=[ERRORCODE]]]></Error>
<AdVerifications><Verification vendor="measure.com-omid"><JavaScriptResource apiFramework="omid"><![CDATA[${S}/omid.js]]></JavaScriptResource></Verification></AdVerifications>
<Creatives><Creative><UniversalAdId idRegistry="unknown">unknown</UniversalAdId><Linear><Duration>00:00:15</Duration>
<TrackingEvents>
<Tracking event="start"><![CDATA[${T}/start]]></Tracking>
<Tracking event="firstQuartile"><![CDATA[${S}/fq]]></Tracking>
<Tracking event="midpoint"><![CDATA[${T}/mid?cb=%%CACHEBUSTER%%&t=%5BTIMESTAMP%5D]]></Tracking>
</TrackingEvents>
<VideoClicks><ClickThrough><![CDATA[https://unknown.adserver.net/landing]]></ClickThrough></VideoClicks>
<MediaFiles><MediaFile delivery="progressive" type="video/mp4" width="640" height="360"><![CDATA[${T}/ad.mp4]]></MediaFile></MediaFiles>
</Linear></Creative></Creatives></InLine></Ad></VAST>`;
});
afterAll(async () => {
  await new Promise<void>((r) => http.close(() => r()));
  await new Promise<void>((r) => https.close(() => r()));
  rmSync(dir, { recursive: true, force: true });
});

const policy = () =>
  createOutboundPolicy(["127.0.0.0/8"], {
    resolve: staticHostResolver({ "vast.adserver.net": "127.0.0.1", "track.adserver.net": "127.0.0.1", "tls.adserver.net": "127.0.0.1", "staging.adserver.net": "10.1.2.3" }),
  });

describe("tracker URLs", () => {
  it("hosts are resolved, connected to and (https) handshaken, and no tracker receives a request", async () => {
    const analyzer = createVastAnalyzer({ policy: policy(), probe: fakeProbe().probe, location: "usa", logger: silentLogger(), trackerChecks: { network: true } });
    const r = await analyzer.analyze(vastJob(`http://vast.adserver.net:${port(http)}/vast.xml`));
    const by = (suffix: string) => r.trackers.find((t) => t.url.includes(suffix))!;
    expect(r.trackers.map((t) => t.kind).sort()).toEqual(["click-through", "error", "tracking", "tracking", "tracking", "verification"]);
    expect(by("/start")).toMatchObject({ kind: "tracking", host: "track.adserver.net", networkChecked: true, resolves: true, tlsValid: false, error: "", nonProduction: "", insecureOnHttps: false, macroProblems: [] });
    expect(by("/fq")).toMatchObject({ networkChecked: true, resolves: true, tlsValid: false, error: "TLS handshake failed: self-signed certificate" });
    expect(by("/omid.js")).toMatchObject({ kind: "verification", networkChecked: true, tlsValid: false, error: "TLS handshake failed: self-signed certificate" });
    expect(by("/landing")).toMatchObject({ kind: "click-through", networkChecked: true, resolves: false, error: "could not resolve host unknown.adserver.net (ENOTFOUND)" });
    expect(by("/error")).toMatchObject({ kind: "error", nonProduction: "a staging or test host", networkChecked: true, resolves: false, error: "refused by the outbound policy: staging.adserver.net resolves to a non-public address (private)" });
    expect(by("/mid").macroProblems).toEqual(["%%CACHEBUSTER%% is not filled by players", "%5BTIMESTAMP%5D is percent-encoded: players fill [TIMESTAMP] only unencoded"]);
    // Side effects: the VAST document, the impression and nothing else was requested; the TLS host saw handshakes only.
    expect(requests.filter((u) => !["/vast.xml", "/imp"].includes(u))).toEqual([]);
    expect(tlsRequests).toEqual([]);
    expect(tlsConnections).toBeGreaterThan(0);
    const t = evaluateVast(r, 0).tests.find((x) => x.test === "tracker_urls")!;
    expect(t).toMatchObject({ result: TestOutcome.FAILED, actual: 5 });
    expect(t.message).toContain("6 tracker URLs, 6 with their host checked");
  });

  it("without the network part (the default) the names, mixed content and macros are still judged", async () => {
    const analyzer = createVastAnalyzer({ policy: policy(), probe: fakeProbe().probe, location: "usa", logger: silentLogger() });
    const before = requests.length;
    const r = await analyzer.analyze(vastJob(`http://vast.adserver.net:${port(http)}/vast.xml`));
    expect(r.trackers.every((t) => !t.networkChecked && !t.resolves)).toBe(true);
    expect(r.trackers.find((t) => t.url.includes("/error"))!.nonProduction).toBe("a staging or test host");
    expect(requests.slice(before).filter((u) => !["/vast.xml", "/imp"].includes(u))).toEqual([]);
    const t = evaluateVast(r, 0).tests.find((x) => x.test === "tracker_urls")!;
    expect(t).toMatchObject({ result: TestOutcome.FAILED, actual: 2, message: expect.stringContaining("6 tracker URLs, 0 with their host checked") });
  });

  it("on an https ad an http tracker is mixed content; bounded by hosts and URLs", async () => {
    const xml = `<VAST version="4.2"><Ad><InLine><AdSystem>x</AdSystem><Creatives><Creative><Linear><TrackingEvents>
${Array.from({ length: 5 }, (_, i) => `<Tracking event="start"><![CDATA[http://h${i}.adserver.net/s]]></Tracking>`).join("")}
</TrackingEvents></Linear></Creative></Creatives></InLine></Ad></VAST>`;
    const parsed = parseXmlDocument(xml, { maxDepth: 64, maxElements: 1000 });
    if (!parsed.ok) throw new Error(parsed.reason);
    const steps = [{ url: "https://ads.example/vast.xml", baseUrl: "https://ads.example/vast.xml", status: "inline" as const, doc: readDocument(parsed.root) }];
    const budget = createScanBudget({ deadlineMs: Date.now() + 10_000, totalBytes: 1 });
    const r = await checkTrackers(steps, "https://ads.example/vast.xml", {
      policy: createOutboundPolicy([], { resolve: staticHostResolver({}) }), budget, rewriteUrl: (u) => u,
      options: { ...DEFAULT_TRACKER_CHECKS, network: true, maxHosts: 2, maxUrls: 4 },
    });
    expect(r.errors).toEqual(["5 tracker URLs; only the first 4 were checked"]);
    expect(r.trackers.map((t) => [t.insecureOnHttps, t.networkChecked, t.error])).toEqual([
      [true, true, "could not resolve host h0.adserver.net (ENOTFOUND)"],
      [true, true, "could not resolve host h1.adserver.net (ENOTFOUND)"],
      [true, false, "not checked: more than 2 tracker hosts in the scan"],
      [true, false, "not checked: more than 2 tracker hosts in the scan"],
    ]);
  });

  it("macro problems of a URL", () => {
    expect(macroProblems("https://t.example/p?cb=[CACHEBUSTING]&e=[ERRORCODE]")).toEqual([]);
    expect(macroProblems("https://t.example/p?x=[MY_ID]&y=${PRICE}&z=[TIMESTAMP")).toEqual([
      "${PRICE} is not filled by players", "[MY_ID] is not filled by players", "a '[' or ']' that is not part of a [MACRO]",
    ]);
  });
});
