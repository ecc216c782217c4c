import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { create } from "@bufbuild/protobuf";
import { ImageSchema, MediaProbeSchema, type MediaInput, type MediaProbe, type ScanJob } from "@cva/contracts";
import { ScanJobSchema, ScanKind } from "@cva/contracts";

export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

export interface FixtureServer {
  origin: string;
  url(path: string): string;
  /** Register a response for a path (exact, query ignored). */
  route(path: string, handler: Handler): void;
  xml(path: string, body: string, headers?: Record<string, string>): void;
  /** Paths requested, in order (query included). */
  hits: string[];
  close(): Promise<void>;
}

/** A local HTTP server on 127.0.0.1:0; unknown paths fall back to `fallback` (404 by default). */
export async function startFixtureServer(fallback?: Handler): Promise<FixtureServer> {
  const routes = new Map<string, Handler>();
  const hits: string[] = [];
  const server: Server = createServer((req, res) => {
    hits.push(req.url ?? "");
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    const h = routes.get(path) ?? fallback;
    if (h) return h(req, res);
    res.writeHead(404, { "content-type": "text/plain" }).end("not found");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    url: (p) => `${origin}${p}`,
    route: (p, h) => routes.set(p, h),
    xml: (p, body, headers = {}) =>
      routes.set(p, (_req, res) => res.writeHead(200, { "content-type": "application/xml", ...headers }).end(body)),
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A port nobody listens on: bind, read the port, close. */
export async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

export interface FakeProbe {
  probe: (input: MediaInput, job: ScanJob) => Promise<MediaProbe>;
  calls: MediaInput[];
}

/** Records calls; answers a probe with stored frame images (ids derived from the URL). */
export function fakeProbe(opts: { frames?: boolean; httpCode?: (url: string) => number } = {}): FakeProbe {
  const calls: MediaInput[] = [];
  return {
    calls,
    probe: async (input) => {
      calls.push(input);
      const code = opts.httpCode?.(input.url) ?? 200;
      return create(MediaProbeSchema, {
        url: input.url,
        httpCode: code,
        ...(code === 200 && opts.frames !== false
          ? {
              firstFrame: create(ImageSchema, { id: `ff:${input.url}`, mimeType: "image/jpeg", bytes: 10n }),
              thumbnail: create(ImageSchema, { id: `th:${input.url}`, mimeType: "image/jpeg", bytes: 5n }),
            }
          : { error: `HTTP ${code}` }),
      });
    },
  };
}

export function vastJob(url: string, jobId = "job-test"): ScanJob {
  return create(ScanJobSchema, {
    jobId,
    kind: ScanKind.VAST,
    apiVersion: "v3",
    targeting: { language: "en-US" },
    input: { case: "vast", value: { url } },
  });
}

export function inlineVast(opts: {
  version?: string;
  title?: string;
  system?: string;
  impressions?: string[];
  media?: string[];
  duration?: string;
  skip?: string;
  clickThrough?: string;
} = {}): string {
  const imps = (opts.impressions ?? []).map((u) => `<Impression><![CDATA[${u}]]></Impression>`).join("\n");
  const media = (opts.media ?? [])
    .map(
      (u, i) =>
        `<MediaFile id="m${i}" delivery="progressive" type="video/mp4" bitrate="${500 + i}" width="640" height="360" scalable="true" maintainAspectRatio="true" codec="avc1.42E01E">\n  <![CDATA[${u}]]>\n</MediaFile>`,
    )
    .join("\n");
  return `<?xml version="1.0" encoding="UTF-8"?>
<VAST version="${opts.version ?? "3.0"}">
  <Ad id="ad-1">
    <InLine>
      <AdSystem version="1.0">${opts.system ?? "FixtureAds"}</AdSystem>
      <AdTitle><![CDATA[  ${opts.title ?? "Fixture title"}  ]]></AdTitle>
      ${imps}
      <Creatives>
        <Creative id="cr-1" adId="adid-1">
          <Linear${opts.skip !== undefined ? ` skipoffset="${opts.skip}"` : ""}>
            <Duration>${opts.duration ?? "00:00:15"}</Duration>
            <TrackingEvents><Tracking event="start"><![CDATA[http://tracker.invalid/start]]></Tracking></TrackingEvents>
            <VideoClicks><ClickThrough><![CDATA[${opts.clickThrough ?? "https://advertiser.example/landing"}]]></ClickThrough></VideoClicks>
            <MediaFiles>
${media}
            </MediaFiles>
          </Linear>
        </Creative>
      </Creatives>
    </InLine>
  </Ad>
</VAST>`;
}

export function wrapperVast(target: string, impressions: string[] = [], version = "3.0"): string {
  const imps = impressions.map((u) => `<Impression><![CDATA[${u}]]></Impression>`).join("");
  return `<?xml version="1.0"?>
<VAST version="${version}"><Ad id="w"><Wrapper><AdSystem>WrapperAds</AdSystem><VASTAdTagURI><![CDATA[${target}]]></VASTAdTagURI>${imps}
<Creatives><Creative><Linear><TrackingEvents><Tracking event="start">http://tracker.invalid/w-start</Tracking></TrackingEvents></Linear></Creative></Creatives></Wrapper></Ad></VAST>`;
}
