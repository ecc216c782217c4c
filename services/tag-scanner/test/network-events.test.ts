// The network gatherer against the event orders Chromium really sends, through a fake CDP session (no browser): the
// ExtraInfo events come from the network service and the others from the renderer, so either may arrive first;
// a redirect reuses its request id for every hop; a response served from cache has no bytes on the wire, and its
// ExtraInfo may be a redirect's arriving late. The sequences follow ones recorded from Chromium (97, 105, 112) in
// puppeteer's NetworkManager tests, trimmed to the fields that matter. Only the factory and its artifact are used.
import { EventEmitter } from "node:events";
import type { CDPSession, Protocol } from "puppeteer-core";
import { describe, expect, it } from "vitest";
import { gatherNetwork, type NetworkArtifact, type RequestRecord } from "../src/gatherers/network.ts";
import { PIXEL_GIF } from "./helpers.ts";

/** A CDP session as the gatherer uses it: events in, `send` answered like Chromium (response bodies by request id). */
class FakeCdp extends EventEmitter {
  readonly sent: string[] = [];
  readonly bodies = new Map<string, Buffer>();
  async send(method: string, params?: { requestId?: string }): Promise<unknown> {
    this.sent.push(method);
    if (method !== "Network.getResponseBody") return {};
    const body = this.bodies.get(params?.requestId ?? "");
    // What Chromium answers for a body it no longer holds.
    if (!body) throw new Error("Protocol error (Network.getResponseBody): No resource with given identifier found");
    return { body: body.toString("base64"), base64Encoded: true };
  }
}

type Event = [method: string, params: object];

/** Starts the gatherer, plays the events in order, stops it (pending body reads finish), returns what it gathered. */
async function gather(events: Event[], opts: { bodies?: Record<string, Buffer>; synthetic?: (url: string) => boolean } = {}) {
  const cdp = new FakeCdp();
  for (const [id, b] of Object.entries(opts.bodies ?? {})) cdp.bodies.set(id, b);
  const g = gatherNetwork(cdp as unknown as CDPSession, { isSynthetic: opts.synthetic ?? (() => false) });
  await g.start();
  const sentBefore = new Map<number, string[]>();
  events.forEach(([method, params], i) => {
    sentBefore.set(i, [...cdp.sent]);
    cdp.emit(method, params);
  });
  await g.stop();
  const artifact: NetworkArtifact = g.artifact;
  return { artifact, sent: cdp.sent, sentBefore };
}

// --- events as Chromium sends them -----------------------------------------------------------------------------

const FRAME = "099A5216AF03AAFEC988F214B024DF08";

function response(url: string, status: number, headers: Record<string, string>, more: Partial<Protocol.Network.Response> = {}): Protocol.Network.Response {
  return {
    url, status, statusText: status === 200 ? "OK" : status === 302 ? "Found" : "", headers, mimeType: "", charset: "",
    connectionReused: false, connectionId: 1, remoteIPAddress: "127.0.0.1", remotePort: 443, fromDiskCache: false,
    fromServiceWorker: false, fromPrefetchCache: false, encodedDataLength: 0, protocol: "http/1.1", securityState: "secure", ...more,
  };
}

function willBeSent(requestId: string, url: string, timestamp: number, more: Partial<Protocol.Network.RequestWillBeSentEvent> = {}): Event {
  const e: Protocol.Network.RequestWillBeSentEvent = {
    requestId, loaderId: "LOADER", documentURL: "https://creative.cva.invalid/", timestamp, wallTime: 1_700_000_000 + timestamp,
    request: { url, method: "GET", headers: {}, initialPriority: "High", referrerPolicy: "strict-origin-when-cross-origin" },
    initiator: { type: "parser" }, redirectHasExtraInfo: false, type: "Script", frameId: FRAME, hasUserGesture: false, ...more,
  };
  return ["Network.requestWillBeSent", e];
}

const willBeSentExtraInfo = (requestId: string): Event => [
  "Network.requestWillBeSentExtraInfo",
  { requestId, associatedCookies: [], headers: { Host: "cdn.example", Accept: "*/*" }, connectTiming: { requestTime: 1 } } satisfies Protocol.Network.RequestWillBeSentExtraInfoEvent,
];

const received = (requestId: string, timestamp: number, type: Protocol.Network.ResourceType, r: Protocol.Network.Response): Event => [
  "Network.responseReceived",
  { requestId, loaderId: "LOADER", timestamp, type, response: r, hasExtraInfo: true, frameId: FRAME } satisfies Protocol.Network.ResponseReceivedEvent,
];

/** The raw response headers from the network service: Set-Cookie among them, which responseReceived leaves out. */
const receivedExtraInfo = (requestId: string, statusCode: number, headers: Record<string, string>): Event => [
  "Network.responseReceivedExtraInfo",
  { requestId, blockedCookies: [], headers, resourceIPAddressSpace: "Public", statusCode } satisfies Protocol.Network.ResponseReceivedExtraInfoEvent,
];

const data = (requestId: string, timestamp: number, dataLength: number): Event => [
  "Network.dataReceived", { requestId, timestamp, dataLength, encodedDataLength: dataLength } satisfies Protocol.Network.DataReceivedEvent,
];

const finished = (requestId: string, timestamp: number, encodedDataLength: number): Event => [
  "Network.loadingFinished", { requestId, timestamp, encodedDataLength } satisfies Protocol.Network.LoadingFinishedEvent,
];

const failed = (requestId: string, timestamp: number, type: Protocol.Network.ResourceType, errorText: string, more: Partial<Protocol.Network.LoadingFailedEvent> = {}): Event => [
  "Network.loadingFailed", { requestId, timestamp, type, errorText, ...more } satisfies Protocol.Network.LoadingFailedEvent,
];

const servedFromCache = (requestId: string): Event => ["Network.requestServedFromCache", { requestId } satisfies Protocol.Network.RequestServedFromCacheEvent];

const mixedContent = (insecureURL: string, requestId: string): Event => [
  "Audits.issueAdded",
  {
    issue: {
      code: "MixedContentIssue",
      details: { mixedContentIssueDetails: { insecureURL, resolutionStatus: "MixedContentAutomaticallyUpgraded", mainResourceURL: "https://creative.cva.invalid/", request: { requestId, url: insecureURL.replace(/^http:/, "https:") } } },
    },
  } satisfies Protocol.Audits.IssueAddedEvent,
];

const only = (a: NetworkArtifact): RequestRecord => {
  expect(a.requests).toHaveLength(1);
  return a.requests[0]!;
};

// --- one request, its ExtraInfo events before or after their counterparts --------------------------------------

describe("network gatherer: one request, ExtraInfo in every order Chromium sends it", () => {
  const SRC = "https://cdn.example/lib.js";
  const shown = { "Content-Type": "text/javascript", "Content-Length": "1234" };
  const raw = { ...shown, "Set-Cookie": "uid=7; Path=/; Secure; SameSite=None" };
  const sent = willBeSent("R1", SRC, 100.0);
  const reqExtra = willBeSentExtraInfo("R1");
  const resp = received("R1", 100.2, "Script", response(SRC, 200, shown, { mimeType: "text/javascript", encodedDataLength: 180 }));
  const respExtra = receivedExtraInfo("R1", 200, raw);
  const body = [data("R1", 100.25, 1000), data("R1", 100.3, 234)];
  const done = finished("R1", 100.4, 1414);

  const orders: Array<[string, Event[]]> = [
    ["the usual order: responseReceivedExtraInfo before responseReceived", [sent, reqExtra, respExtra, resp, ...body, done]],
    ["requestWillBeSentExtraInfo before requestWillBeSent", [reqExtra, sent, respExtra, resp, ...body, done]],
    ["responseReceivedExtraInfo after responseReceived (puppeteer #8234, Chromium 98)", [sent, reqExtra, resp, respExtra, ...body, done]],
    ["responseReceivedExtraInfo after loadingFinished (Chromium 105)", [sent, resp, reqExtra, ...body, done, respExtra]],
    ["both ExtraInfo events last", [sent, resp, ...body, done, reqExtra, respExtra]],
  ];

  it.each(orders)("%s", async (_name, events) => {
    const { artifact } = await gather(events);
    const r = only(artifact);
    expect(r).toMatchObject({
      requestId: "R1", url: SRC, method: "GET", resourceType: "script", frameId: FRAME, startTs: 100.0, endTs: 100.4,
      status: 200, statusText: "OK", mimeType: "text/javascript", remoteIp: "127.0.0.1",
      encodedBytes: 1414, bodyBytes: 1234, finished: true,
    });
    // The raw headers complete the shown ones, whichever came first; names lower-cased.
    expect(r.headers).toEqual({ "content-type": "text/javascript", "content-length": "1234", "set-cookie": raw["Set-Cookie"] });
    expect(r.failure).toBeUndefined();
  });

  it("a request that is still open is in the artifact, unfinished, until its loadingFinished arrives", async () => {
    const { artifact } = await gather([sent, reqExtra, respExtra, resp, body[0]!]);
    expect(only(artifact)).toMatchObject({ status: 200, finished: false, bodyBytes: 1000, encodedBytes: 0 });
    expect(only(artifact).endTs).toBeUndefined();
  });
});

// --- the top document ------------------------------------------------------------------------------------------

describe("network gatherer: navigation start", () => {
  it("is the first document request that starts its own loader, not a subresource or a later frame", async () => {
    const { artifact } = await gather([
      willBeSent("DOC", "https://creative.cva.invalid/", 50.0, { type: "Document", loaderId: "DOC" }),
      willBeSent("S1", "https://cdn.example/a.js", 50.1, { loaderId: "DOC" }),
      willBeSent("FRAME2", "https://ads.example/frame.html", 50.2, { type: "Document", loaderId: "FRAME2", frameId: "CHILD" }),
    ]);
    expect(artifact.navTs).toBe(50.0);
    expect(artifact.navWallTime).toBe(1_700_000_050);
    expect(artifact.requests.map((r) => [r.requestId, r.resourceType, r.frameId])).toEqual([
      ["DOC", "document", FRAME], ["S1", "script", FRAME], ["FRAME2", "document", "CHILD"],
    ]);
  });
});

// --- redirects -------------------------------------------------------------------------------------------------

describe("network gatherer: redirects (one request id for every hop)", () => {
  // Chromium 97's order for 1.html → 2.html → 3.html → empty.html: the first 302's ExtraInfo comes before the hop's
  // redirect requestWillBeSent, the next two come after it (by then the id names the following hop).
  const ID = "7760711DEFCFA23132D98ABA6B4E175C";
  const O = "http://localhost:8907";
  const hop = (n: number) => `${O}/redirect/${n}.html`;
  const loc = (n: number) => `/redirect/${n}.html`;
  const redirect = (from: string, location: string, encodedDataLength: number) =>
    response(from, 302, { location, Connection: "keep-alive" }, { encodedDataLength });
  const doc = { type: "Document" as const, loaderId: ID };
  const chain: Event[] = [
    willBeSent(ID, hop(1), 2111.556, doc),
    willBeSentExtraInfo(ID),
    receivedExtraInfo(ID, 302, { location: loc(2), Connection: "keep-alive" }),
    willBeSent(ID, hop(2), 2111.559, { ...doc, redirectHasExtraInfo: true, redirectResponse: redirect(hop(1), loc(2), 162) }),
    willBeSentExtraInfo(ID),
    willBeSent(ID, hop(3), 2111.560, { ...doc, redirectHasExtraInfo: true, redirectResponse: redirect(hop(2), loc(3), 162) }),
    receivedExtraInfo(ID, 302, { location: loc(3), Connection: "keep-alive" }),
    willBeSentExtraInfo(ID),
    willBeSent(ID, `${O}/empty.html`, 2111.5615, { ...doc, redirectHasExtraInfo: true, redirectResponse: redirect(hop(3), `${O}/empty.html`, 178) }),
    receivedExtraInfo(ID, 302, { location: `${O}/empty.html`, Connection: "keep-alive" }),
    willBeSentExtraInfo(ID),
    receivedExtraInfo(ID, 200, { "Content-Type": "text/html; charset=utf-8", "Content-Length": "0" }),
    received(ID, 2111.5635, "Document", response(`${O}/empty.html`, 200, { "Content-Type": "text/html; charset=utf-8", "Content-Length": "0" }, { mimeType: "text/html", encodedDataLength: 197 })),
    finished(ID, 2111.564, 197),
  ];

  it("records every hop as its own finished request, in order, each ending where the next begins", async () => {
    const { artifact } = await gather(chain);
    expect(artifact.requests.map((r) => [r.url, r.status, r.encodedBytes, r.finished])).toEqual([
      [hop(1), 302, 162, true], [hop(2), 302, 162, true], [hop(3), 302, 178, true], [`${O}/empty.html`, 200, 197, true],
    ]);
    expect(artifact.requests.map((r) => r.endTs)).toEqual([2111.559, 2111.560, 2111.5615, 2111.564]);
    expect(artifact.requests.map((r) => r.startTs)).toEqual([2111.556, 2111.559, 2111.560, 2111.5615]);
    // Hops get ids of their own; the last keeps Chromium's, so later events for that id land on it.
    expect(new Set(artifact.requests.map((r) => r.requestId)).size).toBe(4);
    expect(artifact.requests[3]!.requestId).toBe(ID);
    expect(artifact.requests[3]!.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(artifact.navTs).toBe(2111.556);
  });

  it("a hop whose next request is still on its way leaves only that one unfinished", async () => {
    const { artifact } = await gather(chain.slice(0, 5));
    expect(artifact.requests.map((r) => [r.url, r.finished])).toEqual([[hop(1), true], [hop(2), false]]);
  });

  // Once a bug: ExtraInfo was kept per request id and merged into whichever hop held the id, so a 302's raw headers
  // arriving after its redirect landed on the next hop (every later hop reported the previous hop's Location).
  it("each hop reports its own response headers, whenever its ExtraInfo arrived", async () => {
    const { artifact } = await gather(chain);
    expect(artifact.requests.map((r) => r.headers.location)).toEqual([loc(2), loc(3), `${O}/empty.html`, undefined]);
  });
});

// --- served from cache -----------------------------------------------------------------------------------------

describe("network gatherer: responses served from cache", () => {
  it("a memory-cache hit (requestServedFromCache, no ExtraInfo) has its body but no bytes on the wire", async () => {
    const SRC = "https://cdn.example/logo.svg";
    const { artifact } = await gather([
      willBeSent("C1", SRC, 10.0, { type: "Image" }),
      servedFromCache("C1"),
      received("C1", 10.01, "Image", response(SRC, 200, { "Content-Type": "image/svg+xml" }, { mimeType: "image/svg+xml", fromDiskCache: true })),
      data("C1", 10.02, 5000),
      finished("C1", 10.03, 0),
    ]);
    expect(only(artifact)).toMatchObject({ status: 200, encodedBytes: 0, bodyBytes: 5000, finished: true, resourceType: "image", headers: { "content-type": "image/svg+xml" } });
  });

  // Chromium 112: a script-initiated navigation to /redirect, 302 to a page in the disk cache. The final hop's
  // responseReceived (fromDiskCache, nothing on the wire) comes before an ExtraInfo that repeats the 302's headers.
  const ID = "4C2CC44FB6A6CAC5BE2780BCC9313105";
  const O = "http://localhost:3000";
  const redirectRaw = { Location: `${O}/#from-redirect`, Connection: "keep-alive" };
  const cachedRedirect: Event[] = [
    willBeSent(ID, `${O}/redirect`, 31949.9829, { type: "Document", loaderId: ID }),
    willBeSentExtraInfo(ID),
    receivedExtraInfo(ID, 302, redirectRaw),
    willBeSent(ID, `${O}/`, 31949.9885, {
      type: "Document", loaderId: ID, redirectHasExtraInfo: true, redirectResponse: response(`${O}/redirect`, 302, redirectRaw, { encodedDataLength: 182 }),
    }),
    willBeSentExtraInfo(ID),
    received(ID, 31949.9913, "Document", response(`${O}/`, 200, { "Cache-Control": "max-age=5", "Content-Type": "text/html; charset=utf-8" }, { mimeType: "text/html", fromDiskCache: true, encodedDataLength: 0 })),
    receivedExtraInfo(ID, 302, redirectRaw),
    finished(ID, 31949.9894, 0),
  ];

  it("a redirect to a disk-cached page: two hops, the cached one finished with nothing on the wire", async () => {
    const { artifact } = await gather(cachedRedirect);
    expect(artifact.requests.map((r) => [r.url, r.status, r.encodedBytes, r.finished])).toEqual([
      [`${O}/redirect`, 302, 182, true], [`${O}/`, 200, 0, true],
    ]);
    expect(artifact.requests[0]!.headers.location).toBe(`${O}/#from-redirect`);
    expect(artifact.requests[1]!.headers["content-type"]).toBe("text/html; charset=utf-8");
  });

  // The late ExtraInfo is the 302's (statusCode 302): it must not land on the cached 200.
  it("the cached page does not take the redirect's late ExtraInfo headers", async () => {
    const { artifact } = await gather(cachedRedirect);
    expect(artifact.requests[1]!.headers.location).toBeUndefined();
  });
});

// --- failures --------------------------------------------------------------------------------------------------

describe("network gatherer: failed and unknown requests", () => {
  it("a request refused before any response says why, and is finished", async () => {
    const { artifact } = await gather([
      willBeSent("B1", "https://tracker.example/p.gif", 5.0, { type: "Image" }),
      failed("B1", 5.01, "Image", "net::ERR_BLOCKED_BY_CLIENT", { blockedReason: "inspector" }),
    ]);
    expect(only(artifact)).toMatchObject({ failure: "net::ERR_BLOCKED_BY_CLIENT (inspector)", finished: true, endTs: 5.01, resourceType: "image" });
    expect(only(artifact).status).toBeUndefined();
  });

  it("a response cut off mid-body keeps its status and says it was cancelled", async () => {
    const SRC = "https://cdn.example/video.mp4";
    const { artifact } = await gather([
      willBeSent("M1", SRC, 7.0, { type: "Media" }),
      receivedExtraInfo("M1", 206, { "Content-Type": "video/mp4" }),
      received("M1", 7.1, "Media", response(SRC, 206, { "Content-Type": "video/mp4" }, { mimeType: "video/mp4" })),
      data("M1", 7.2, 65536),
      failed("M1", 7.3, "Media", "net::ERR_ABORTED", { canceled: true }),
    ]);
    expect(only(artifact)).toMatchObject({ status: 206, bodyBytes: 65536, failure: "net::ERR_ABORTED", canceled: true, finished: true, resourceType: "media" });
  });

  it("events of a request it never saw start (sent before Network.enable) add nothing and break nothing", async () => {
    const { artifact } = await gather([
      receivedExtraInfo("OLD", 200, { "Set-Cookie": "a=1" }),
      received("OLD", 1.0, "Script", response("https://old.example/x.js", 200, {})),
      data("OLD", 1.1, 10),
      finished("OLD", 1.2, 10),
      failed("OLD2", 1.3, "Script", "net::ERR_ABORTED"),
      willBeSent("NEW", "https://cdn.example/n.js", 2.0),
      finished("NEW", 2.1, 50),
    ]);
    expect(artifact.requests.map((r) => [r.requestId, r.encodedBytes, r.headers])).toEqual([["NEW", 50, {}]]);
  });
});

// --- what loadingFinished sets off -----------------------------------------------------------------------------

describe("network gatherer: work started by loadingFinished", () => {
  const SRC = "https://cdn.example/pixel.gif";
  const pixel: Event[] = [
    willBeSent("P1", SRC, 3.0, { type: "Image" }),
    receivedExtraInfo("P1", 200, { "Content-Type": "image/gif" }),
    received("P1", 3.1, "Image", response(SRC, 200, { "Content-Type": "image/gif" }, { mimeType: "image/gif" })),
    data("P1", 3.15, PIXEL_GIF.length),
    finished("P1", 3.2, PIXEL_GIF.length + 120),
  ];

  it("reads a small image's body once it has finished, never before, and stop() waits for the read", async () => {
    const { artifact, sent, sentBefore } = await gather(pixel, { bodies: { P1: PIXEL_GIF } });
    expect(sent.filter((m) => m === "Network.getResponseBody")).toHaveLength(1);
    expect(sentBefore.get(pixel.length - 1)).not.toContain("Network.getResponseBody");
    expect(only(artifact)).toMatchObject({ imageSize: { width: 1, height: 1 }, bodyBytes: PIXEL_GIF.length, encodedBytes: PIXEL_GIF.length + 120 });
  });

  it("a body Chromium no longer holds leaves the size unknown, and the record intact", async () => {
    const { artifact } = await gather(pixel);
    expect(only(artifact).imageSize).toBeUndefined();
    expect(only(artifact)).toMatchObject({ status: 200, finished: true });
  });

  it("a response the scanner served itself (interception) counts its body as its bytes: nothing crossed the wire", async () => {
    const SRC2 = "https://creative.cva.invalid/ad.js";
    const { artifact } = await gather([
      willBeSent("S1", SRC2, 1.0),
      received("S1", 1.01, "Script", response(SRC2, 200, { "Content-Type": "text/javascript" }, { mimeType: "text/javascript" })),
      data("S1", 1.02, 777),
      finished("S1", 1.03, 0),
    ], { synthetic: (u) => u.startsWith("https://creative.cva.invalid/") });
    expect(only(artifact)).toMatchObject({ synthetic: true, encodedBytes: 777, bodyBytes: 777 });
  });
});

// --- mixed content ---------------------------------------------------------------------------------------------

describe("network gatherer: mixed-content upgrades", () => {
  const written = "http://cdn.example/img.png";
  const upgraded = "https://cdn.example/img.png";
  it.each([
    ["the issue before the request", [mixedContent(written, "U1"), willBeSent("U1", upgraded, 4.0, { type: "Image" })]],
    ["the issue after the request", [willBeSent("U1", upgraded, 4.0, { type: "Image" }), mixedContent(written, "U1")]],
  ] as Array<[string, Event[]]>)("keeps the URL as written, %s", async (_name, events) => {
    const { artifact } = await gather([...events, mixedContent(written, "U1"), finished("U1", 4.1, 10)]);
    expect(only(artifact)).toMatchObject({ url: upgraded, writtenUrl: written, finished: true });
    expect(artifact.mixedContent).toEqual([written]);
  });
});
