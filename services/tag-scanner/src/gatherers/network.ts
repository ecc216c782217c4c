import type { CDPSession, Protocol } from "puppeteer-core";
import type { Gatherer } from "./gatherer.ts";
import { type ImageAnimation, imageAnimation } from "./image-animation.ts";
import { MAX_SVG_BYTES, svgAnimation } from "./svg-animation.ts";

/** One request as CDP saw it; plain data (the network artifact). */
export interface RequestRecord {
  requestId: string;
  url: string;
  method: string;
  resourceType: string;
  frameId: string;
  /** Monotonic CDP timestamp (seconds) when the request was sent. */
  startTs: number;
  /** Monotonic CDP timestamp (seconds) of the response's headers. */
  responseTs?: number;
  endTs?: number;
  status?: number;
  statusText?: string;
  headers: Record<string, string>;
  mimeType?: string;
  remoteIp?: string;
  security?: { protocol: string; validFrom: number; validTo: number };
  /** Bytes on the wire (encodedDataLength from loadingFinished). */
  encodedBytes: number;
  /** Decoded body bytes (sum of dataReceived.dataLength). */
  bodyBytes: number;
  failure?: string;
  canceled?: boolean;
  /** Set when the record was cut to the byte budgets (see MAX_URL …): says what was dropped. */
  truncated?: string;
  /** Image pixel size parsed from the body's header (GIF/PNG/WebP/JPEG), for small images only. */
  imageSize?: { width: number; height: number };
  synthetic?: boolean;
  finished: boolean;
  /** Local Date.now() when the response finished loading. */
  finishedLocal?: number;
  /** Frame timing of an animated GIF, WebP or APNG, or the SMIL/CSS timeline of an SVG image, read from its bytes. */
  animation?: ImageAnimation;
  /**
   * The URL as the creative wrote it when Chromium changed it before sending: an http:// subresource of an https page
   * is upgraded to https:// (mixed-content autoupgrade), and the request then shows only the upgraded URL.
   */
  writtenUrl?: string;
}

export interface NetworkArtifact {
  requests: RequestRecord[];
  /**
   * Every URL the creative asked for over plain http:// (or ws://) that Chromium blocked or upgraded as mixed content
   * (from the Audits domain), as written: the network entries alone would show the upgraded https:// URL or nothing.
   */
  mixedContent: string[];
  /** Monotonic timestamp (s) of the top document's request (navigation start), and its wall time (epoch s). */
  navTs?: number;
  navWallTime?: number;
  /**
   * How many requests and mixed-content URLs were the creative's: those recorded before the click-through
   * (`endCreative`). Later ones are the landing page's. Undefined when the scan never got there: all are the creative's.
   */
  creativeRequests?: number;
  creativeMixedContent?: number;
}

const SMALL_IMAGE = 4096;
/** GIFs, WebPs and PNGs up to this size are read for their frame timing (the render watch needs it); larger are not. */
const MAX_ANIMATION_READ = 4 * 1024 * 1024;
/** The types an animated image comes as (APNG is mostly served as image/png). */
const ANIMATABLE = /^image\/(gif|webp|png|apng)\b/;
const SVG = /^image\/svg\+xml\b/;
const MAX_MIXED = 500;

/** Width/height from the first bytes of an image, or undefined. */
export function imageSizeFromBytes(b: Buffer): { width: number; height: number } | undefined {
  if (b.length >= 10 && b.toString("latin1", 0, 3) === "GIF") return { width: b.readUInt16LE(6), height: b.readUInt16LE(8) };
  if (b.length >= 24 && b.readUInt32BE(0) === 0x89504e47 && b.toString("latin1", 12, 16) === "IHDR")
    return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
  if (b.length >= 30 && b.toString("latin1", 0, 4) === "RIFF" && b.toString("latin1", 8, 12) === "WEBP") {
    const kind = b.toString("latin1", 12, 16);
    if (kind === "VP8X") return { width: 1 + b.readUIntLE(24, 3), height: 1 + b.readUIntLE(27, 3) };
    if (kind === "VP8 ") return { width: b.readUInt16LE(26) & 0x3fff, height: b.readUInt16LE(28) & 0x3fff };
    if (kind === "VP8L") {
      const bits = b.readUInt32LE(21);
      return { width: (bits & 0x3fff) + 1, height: ((bits >> 14) & 0x3fff) + 1 };
    }
  }
  if (b.length >= 4 && b[0] === 0xff && b[1] === 0xd8) {
    let i = 2;
    while (i + 9 < b.length) {
      if (b[i] !== 0xff) return undefined;
      const marker = b[i + 1]!;
      const len = b.readUInt16BE(i + 2);
      if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc)
        return { width: b.readUInt16BE(i + 7), height: b.readUInt16BE(i + 5) };
      i += 2 + len;
    }
  }
  return undefined;
}

const MAX_REQUESTS = 2000;
/**
 * Byte budgets: a creative controls its URLs (up to 2 MB each in Chromium) and its servers' headers. Each record
 * keeps at most MAX_URL chars of URL and MAX_HEADERS bytes of headers (values cut at MAX_HEADER_VALUE); once the
 * scan's records hold SCAN_BUDGET bytes, later ones keep a short URL and no headers. A cut record says so
 * (`truncated`), and the report's entry carries it in `failure`.
 */
const MAX_URL = 8 * 1024;
const MAX_HEADER_VALUE = 4 * 1024;
const MAX_HEADERS = 16 * 1024;
const SCAN_BUDGET = 8 * 1024 * 1024;
const OVER_BUDGET_URL = 1024;
/** Requests that may stay open for the page's lifetime; they do not keep the network "busy". */
const LONG_LIVED = new Set(["websocket", "eventsource", "media"]);

/** Collects every request/response of the page target from CDP Network events (all frames share the target). */
export function gatherNetwork(client: CDPSession, opts: { isSynthetic(url: string): boolean }) {
  const byId = new Map<string, RequestRecord>();
  const list: RequestRecord[] = [];
  const artifact: NetworkArtifact = { requests: list, mixedContent: [] };
  const upgradedFrom = new Map<string, string>();
  const pendingBodies = new Set<Promise<void>>();
  // Raw headers come in responseReceivedExtraInfo, one per hop of a redirect chain under the chain's one request id,
  // before or after that hop's response — a 302's may arrive after the next hop began, and a hop served from cache
  // has none (while Chromium may repeat an earlier hop's). Each goes to the chain's first hop still without one
  // whose status is its statusCode (or not known yet): never simply to whichever hop holds the id now.
  const hopsById = new Map<string, RequestRecord[]>();
  const extraOf = new WeakMap<RequestRecord, Record<string, string>>();
  // ExtraInfo that came before its hop's requestWillBeSent (the network service and the renderer race): the next hop
  // of that id takes it.
  const earlyExtra = new Map<string, Array<{ status: number; headers: Record<string, string> }>>();

  let held = 0;
  const cut = (rec: RequestRecord, what: string) => {
    rec.truncated = rec.truncated ? `${rec.truncated}; ${what}` : what;
  };
  const capUrl = (url: string): { url: string; cut: boolean } => {
    const max = held > SCAN_BUDGET ? OVER_BUDGET_URL : MAX_URL;
    held += Math.min(url.length, max);
    return url.length > max ? { url: url.slice(0, max), cut: true } : { url, cut: false };
  };
  const lower = (h: Record<string, unknown> | undefined, rec?: RequestRecord) => {
    const out: Record<string, string> = {};
    if (held > SCAN_BUDGET) {
      if (rec) cut(rec, "headers dropped: the scan's network records reached their byte budget");
      return out;
    }
    let bytes = 0;
    for (const [k, v] of Object.entries(h ?? {})) {
      let value = String(v);
      if (value.length > MAX_HEADER_VALUE) {
        value = value.slice(0, MAX_HEADER_VALUE);
        if (rec) cut(rec, `header ${k.toLowerCase().slice(0, 100)} cut to ${MAX_HEADER_VALUE} bytes`);
      }
      bytes += k.length + value.length;
      if (bytes > MAX_HEADERS) {
        if (rec) cut(rec, `headers cut at ${MAX_HEADERS} bytes`);
        break;
      }
      out[k.toLowerCase().slice(0, 256)] = value;
    }
    held += bytes;
    return out;
  };
  const applyResponse = (rec: RequestRecord, r: Protocol.Network.Response) => {
    rec.status = r.status;
    rec.statusText = r.statusText;
    rec.headers = { ...lower(r.headers, rec), ...(extraOf.get(rec) ?? {}) };
    rec.mimeType = r.mimeType;
    rec.remoteIp = r.remoteIPAddress;
    if (r.securityDetails)
      rec.security = { protocol: r.securityDetails.protocol, validFrom: r.securityDetails.validFrom, validTo: r.securityDetails.validTo };
  };

  client.on("Network.requestWillBeSent", (e: Protocol.Network.RequestWillBeSentEvent) => {
    const prev = byId.get(e.requestId);
    if (prev && e.redirectResponse) {
      // A redirect reuses the request id: close the previous hop as its own response.
      applyResponse(prev, e.redirectResponse);
      prev.endTs = e.timestamp;
      prev.encodedBytes = e.redirectResponse.encodedDataLength ?? 0;
      prev.finished = true;
      prev.requestId = `${e.requestId}:${e.redirectResponse.status}:${list.length}`;
    }
    if (artifact.navTs === undefined && e.type === "Document" && e.frameId && e.loaderId === e.requestId) {
      artifact.navTs = e.timestamp;
      artifact.navWallTime = e.wallTime;
    }
    if (list.length >= MAX_REQUESTS) return;
    const capped = capUrl(e.request.url);
    const rec: RequestRecord = {
      requestId: e.requestId, url: capped.url, method: e.request.method.slice(0, 32),
      resourceType: (e.type ?? "Other").toLowerCase(), frameId: e.frameId ?? "", startTs: e.timestamp,
      headers: {}, encodedBytes: 0, bodyBytes: 0, finished: false, synthetic: opts.isSynthetic(e.request.url),
    };
    if (capped.cut) cut(rec, `URL cut to ${capped.url.length} characters`);
    const written = upgradedFrom.get(e.requestId);
    if (written && written !== rec.url) rec.writtenUrl = written;
    byId.set(e.requestId, rec);
    list.push(rec);
    const hops = hopsById.get(e.requestId);
    if (hops) {
      if (hops.length < 50) hops.push(rec);
    } else hopsById.set(e.requestId, [rec]);
    const early = earlyExtra.get(e.requestId)?.shift();
    if (early) extraOf.set(rec, early.headers);
  });
  client.on("Network.responseReceived", (e: Protocol.Network.ResponseReceivedEvent) => {
    const rec = byId.get(e.requestId);
    if (rec) {
      applyResponse(rec, e.response);
      rec.responseTs = e.timestamp;
      if (e.type) rec.resourceType = e.type.toLowerCase();
    }
  });
  client.on("Network.responseReceivedExtraInfo", (e: Protocol.Network.ResponseReceivedExtraInfoEvent) => {
    // Raw headers (with Set-Cookie, which responseReceived leaves out); may arrive before or after responseReceived.
    const hops = hopsById.get(e.requestId) ?? [];
    const rec = hops.find((r) => !extraOf.has(r) && (r.status === undefined || r.status === e.statusCode));
    if (!rec) {
      // Before its hop began (kept for the next hop of that id), or a repeat of headers a hop already has (the cached
      // page after a redirect: its status is not this one) — never put on a hop it does not match.
      const waiting = hops.every((r) => extraOf.has(r) || r.status !== undefined);
      const early = earlyExtra.get(e.requestId) ?? [];
      if (waiting && early.length < 4 && (early.length > 0 || earlyExtra.size < MAX_REQUESTS)) {
        early.push({ status: e.statusCode, headers: lower(e.headers) });
        earlyExtra.set(e.requestId, early);
      }
      return;
    }
    const h = lower(e.headers, rec);
    extraOf.set(rec, h);
    if (rec.status !== undefined) rec.headers = { ...rec.headers, ...h };
  });
  client.on("Network.dataReceived", (e: Protocol.Network.DataReceivedEvent) => {
    const rec = byId.get(e.requestId);
    if (rec) rec.bodyBytes += e.dataLength;
  });
  client.on("Network.loadingFinished", (e: Protocol.Network.LoadingFinishedEvent) => {
    const rec = byId.get(e.requestId);
    if (!rec) return;
    rec.endTs = e.timestamp;
    rec.encodedBytes = e.encodedDataLength;
    rec.finished = true;
    rec.finishedLocal = Date.now();
    if (rec.synthetic && rec.encodedBytes === 0) rec.encodedBytes = rec.bodyBytes;
    const animatable = ANIMATABLE.test(rec.mimeType ?? "") || ANIMATABLE.test(rec.headers["content-type"] ?? "");
    const small = rec.resourceType === "image" && rec.bodyBytes <= SMALL_IMAGE;
    // An SVG image (<img src=….svg>, a CSS background) animates inside itself, out of every DOM probe's reach.
    const svg = rec.resourceType === "image" && rec.bodyBytes <= MAX_SVG_BYTES
      && (SVG.test(rec.mimeType ?? "") || SVG.test(rec.headers["content-type"] ?? "") || /\.svgz?(?:$|[?#])/i.test(rec.url));
    if (small || svg || (animatable && rec.bodyBytes <= MAX_ANIMATION_READ)) {
      const p = client
        .send("Network.getResponseBody", { requestId: e.requestId })
        .then((b) => {
          const buf = Buffer.from(b.body, b.base64Encoded ? "base64" : "utf8");
          if (small) rec.imageSize = imageSizeFromBytes(buf);
          if (animatable) rec.animation = imageAnimation(buf);
          else if (svg) rec.animation = svgAnimation(buf);
        })
        .catch(() => {})
        .finally(() => pendingBodies.delete(p));
      pendingBodies.add(p);
    }
  });
  client.on("Network.loadingFailed", (e: Protocol.Network.LoadingFailedEvent) => {
    const rec = byId.get(e.requestId);
    if (!rec) return;
    rec.endTs = e.timestamp;
    rec.failure = e.blockedReason ? `${e.errorText} (${e.blockedReason})` : e.errorText;
    rec.canceled = e.canceled;
    rec.finished = true;
    if (e.type) rec.resourceType = e.type.toLowerCase();
  });

  client.on("Audits.issueAdded", (e: Protocol.Audits.IssueAddedEvent) => {
    const d = e.issue.details.mixedContentIssueDetails;
    if (e.issue.code !== "MixedContentIssue" || !d || artifact.mixedContent.length >= MAX_MIXED) return;
    const written = d.insecureURL.slice(0, 4096);
    if (!artifact.mixedContent.includes(written)) artifact.mixedContent.push(written);
    const id = d.request?.requestId;
    if (!id) return;
    const rec = byId.get(id);
    if (rec && rec.url !== written) rec.writtenUrl = written;
    else upgradedFrom.set(id, written);
  });

  // WebSockets are not Network.requestWillBeSent requests; record them as entries of their own.
  const sockets = new Map<string, RequestRecord>();
  client.on("Network.webSocketCreated", (e: Protocol.Network.WebSocketCreatedEvent) => {
    if (list.length >= MAX_REQUESTS) return;
    const rec: RequestRecord = {
      requestId: `ws:${e.requestId}`, url: capUrl(e.url).url, method: "GET", resourceType: "websocket", frameId: "",
      startTs: lastTs, headers: {}, encodedBytes: 0, bodyBytes: 0, finished: false,
    };
    sockets.set(e.requestId, rec);
    list.push(rec);
  });
  let lastTs = 0;
  client.on("Network.webSocketWillSendHandshakeRequest", (e: Protocol.Network.WebSocketWillSendHandshakeRequestEvent) => {
    lastTs = e.timestamp;
    const rec = sockets.get(e.requestId);
    if (rec) rec.startTs = e.timestamp;
  });
  client.on("Network.webSocketHandshakeResponseReceived", (e: Protocol.Network.WebSocketHandshakeResponseReceivedEvent) => {
    const rec = sockets.get(e.requestId);
    if (!rec) return;
    rec.status = e.response.status;
    rec.statusText = e.response.statusText;
    rec.headers = lower(e.response.headers, rec);
    rec.endTs = e.timestamp;
    rec.finished = true;
  });
  client.on("Network.webSocketFrameError", (e: Protocol.Network.WebSocketFrameErrorEvent) => {
    const rec = sockets.get(e.requestId);
    if (rec && rec.status === undefined) {
      rec.failure = e.errorMessage || "websocket failed";
      rec.endTs = e.timestamp;
      rec.finished = true;
    }
  });
  client.on("Network.webSocketClosed", (e: Protocol.Network.WebSocketClosedEvent) => {
    const rec = sockets.get(e.requestId);
    if (rec && rec.status === undefined && !rec.failure) {
      rec.failure = "websocket connection failed";
      rec.endTs = e.timestamp;
      rec.finished = true;
    }
  });

  /** Requests still waiting for an answer (network idle detection). */
  const inflight = (): number => {
    let n = 0;
    for (const r of list) if (!r.finished && !LONG_LIVED.has(r.resourceType)) n++;
    return n;
  };
  return {
    name: "network",
    artifact,
    async start(): Promise<void> {
      await Promise.all([
        client.send("Network.enable", { maxTotalBufferSize: 50_000_000, maxResourceBufferSize: 5_000_000 }),
        client.send("Network.setCacheDisabled", { cacheDisabled: true }),
        // Mixed-content issues name the URL the creative wrote before Chromium upgraded or blocked it.
        client.send("Audits.enable").catch(() => {}),
      ]);
    },
    /** Requests started at or after list index `index` that have not finished (a click tracker on its way). */
    inflightSince(index: number): number {
      let n = 0;
      for (let i = index; i < list.length; i++) if (!list[i]!.finished && !LONG_LIVED.has(list[i]!.resourceType)) n++;
      return n;
    },
    inflight,
    /** Requests in flight, or response bodies still being read (an animated image whose timing is not known yet). */
    busy(): boolean {
      return pendingBodies.size > 0 || inflight() > 0;
    },
    /** Animated images (GIF, WebP, APNG, SVG) loaded so far, with when they started playing. */
    animatedImages(): Array<{ url: string; loadedAt: number; durationMs: number; plays: number }> {
      const out = [];
      for (const r of list) {
        if (r.animation && r.animation.frames > 1 && r.finishedLocal) out.push({ url: r.url, loadedAt: r.finishedLocal, durationMs: r.animation.durationMs, plays: r.animation.plays });
      }
      return out;
    },
    /** What follows is the landing page's: marks where the creative's requests end. */
    endCreative(): void {
      artifact.creativeRequests = list.length;
      artifact.creativeMixedContent = artifact.mixedContent.length;
    },
    /** Lets pending body reads finish (bounded by the caller). */
    async stop(): Promise<void> {
      await Promise.all([...pendingBodies]);
    },
  } satisfies Gatherer<NetworkArtifact> & Record<string, unknown>;
}
