import type { CDPSession, Protocol } from "puppeteer-core";

/** One request as CDP saw it; plain data (the network artifact). */
export interface RequestRecord {
  requestId: string;
  url: string;
  method: string;
  resourceType: string;
  frameId: string;
  /** Monotonic CDP timestamp (seconds) when the request was sent. */
  startTs: number;
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
  /** Image pixel size parsed from the body's header (GIF/PNG/WebP/JPEG), for small images only. */
  imageSize?: { width: number; height: number };
  synthetic?: boolean;
  finished: boolean;
}

export interface NetworkArtifact {
  requests: RequestRecord[];
  /** Monotonic timestamp (s) of the top document's request (navigation start), and its wall time (epoch s). */
  navTs?: number;
  navWallTime?: number;
}

const SMALL_IMAGE = 4096;

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
/** Requests that may stay open for the page's lifetime; they do not keep the network "busy". */
const LONG_LIVED = new Set(["websocket", "eventsource", "media"]);

/** Collects every request/response of the page target from CDP Network events (all frames share the target). */
export function gatherNetwork(client: CDPSession, opts: { isSynthetic(url: string): boolean }) {
  const byId = new Map<string, RequestRecord>();
  const list: RequestRecord[] = [];
  const artifact: NetworkArtifact = { requests: list };
  const pendingBodies = new Set<Promise<void>>();
  const extraHeaders = new Map<string, Record<string, string>>();

  const lower = (h: Record<string, unknown> | undefined) => {
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(h ?? {})) out[k.toLowerCase()] = String(v);
    return out;
  };
  const applyResponse = (rec: RequestRecord, r: Protocol.Network.Response) => {
    rec.status = r.status;
    rec.statusText = r.statusText;
    rec.headers = { ...lower(r.headers), ...(extraHeaders.get(rec.requestId) ?? {}) };
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
    const rec: RequestRecord = {
      requestId: e.requestId, url: e.request.url, method: e.request.method,
      resourceType: (e.type ?? "Other").toLowerCase(), frameId: e.frameId ?? "", startTs: e.timestamp,
      headers: {}, encodedBytes: 0, bodyBytes: 0, finished: false, synthetic: opts.isSynthetic(e.request.url),
    };
    byId.set(e.requestId, rec);
    list.push(rec);
  });
  client.on("Network.responseReceived", (e: Protocol.Network.ResponseReceivedEvent) => {
    const rec = byId.get(e.requestId);
    if (rec) {
      applyResponse(rec, e.response);
      if (e.type) rec.resourceType = e.type.toLowerCase();
    }
  });
  client.on("Network.responseReceivedExtraInfo", (e: Protocol.Network.ResponseReceivedExtraInfoEvent) => {
    // Raw headers (with Set-Cookie, which responseReceived leaves out); may arrive before or after responseReceived.
    const h = lower(e.headers);
    extraHeaders.set(e.requestId, h);
    const rec = byId.get(e.requestId);
    if (rec && rec.status !== undefined) rec.headers = { ...rec.headers, ...h };
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
    if (rec.synthetic && rec.encodedBytes === 0) rec.encodedBytes = rec.bodyBytes;
    if (rec.resourceType === "image" && rec.bodyBytes <= SMALL_IMAGE) {
      const p = client
        .send("Network.getResponseBody", { requestId: e.requestId })
        .then((b) => {
          const buf = Buffer.from(b.body, b.base64Encoded ? "base64" : "utf8");
          rec.imageSize = imageSizeFromBytes(buf);
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

  // WebSockets are not Network.requestWillBeSent requests; record them as entries of their own.
  const sockets = new Map<string, RequestRecord>();
  client.on("Network.webSocketCreated", (e: Protocol.Network.WebSocketCreatedEvent) => {
    if (list.length >= MAX_REQUESTS) return;
    const rec: RequestRecord = {
      requestId: `ws:${e.requestId}`, url: e.url, method: "GET", resourceType: "websocket", frameId: "",
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
    rec.headers = lower(e.response.headers);
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

  return {
    artifact,
    /** Requests still waiting for an answer (network idle detection). */
    inflight(): number {
      let n = 0;
      for (const r of list) if (!r.finished && !LONG_LIVED.has(r.resourceType)) n++;
      return n;
    },
    /** Lets pending small-image body reads finish (bounded by the caller). */
    async settle(): Promise<void> {
      await Promise.all([...pendingBodies]);
    },
  };
}
