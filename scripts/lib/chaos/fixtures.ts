// The creatives `npm run chaos` scans, served from loopback: an image for the ad tags, a VAST document per request
// whose impression pixel names that request, the media file the VAST plays, and the pixel counter.
import { execFile } from "node:child_process";
import { createReadStream } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { promisify } from "node:util";

const GIF = Buffer.from("R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==", "base64");

export interface ChaosFixtures {
  origin: string;
  vastUrl(request: number): string;
  /** Hits of each request's impression pixel. */
  pixelHits: Map<number, number>;
  close(): Promise<void>;
}

export async function startChaosFixtures(dir: string): Promise<ChaosFixtures> {
  const media = join(dir, "ad.mp4");
  await promisify(execFile)("ffmpeg", [
    "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x180:rate=25:duration=2", "-f", "lavfi", "-i", "sine=frequency=440:duration=2",
    "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-movflags", "+faststart", "-shortest", media,
  ]);
  const pixelHits = new Map<number, number>();
  let origin = "";
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    const pixel = /^\/pixel\/(\d+)$/.exec(url.pathname);
    if (pixel) {
      const n = Number(pixel[1]);
      pixelHits.set(n, (pixelHits.get(n) ?? 0) + 1);
      return void res.writeHead(200, { "content-type": "image/gif" }).end(GIF);
    }
    const vast = /^\/vast\/(\d+)\.xml$/.exec(url.pathname);
    if (vast) {
      res.writeHead(200, { "content-type": "application/xml", "access-control-allow-origin": req.headers.origin ?? "*", "access-control-allow-credentials": "true" });
      return void res.end(`<?xml version="1.0"?><VAST version="4.1"><Ad id="${vast[1]}"><InLine><AdSystem>chaos</AdSystem><AdTitle>chaos ${vast[1]}</AdTitle>
<Impression><![CDATA[${origin}/pixel/${vast[1]}]]></Impression><Creatives><Creative><Linear><Duration>00:00:02</Duration><MediaFiles>
<MediaFile delivery="progressive" type="video/mp4" width="320" height="180" bitrate="400"><![CDATA[${origin}/ad.mp4]]></MediaFile>
</MediaFiles><VideoClicks><ClickThrough><![CDATA[https://advertiser.example/]]></ClickThrough></VideoClicks></Linear></Creative></Creatives></InLine></Ad></VAST>`);
    }
    if (url.pathname === "/ad.mp4") {
      res.writeHead(200, { "content-type": "video/mp4" });
      return void createReadStream(media).pipe(res);
    }
    if (url.pathname === "/img.gif") return void res.writeHead(200, { "content-type": "image/gif" }).end(GIF);
    res.writeHead(404, { "content-type": "text/plain" }).end("not found");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    vastUrl: (n) => `${origin}/vast/${n}.xml`,
    pixelHits,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
