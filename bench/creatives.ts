// What the bench scans: one static 300x250 creative (as a v3 tag and as a zip) and one 15 s 1280x720 H.264/AAC file
// behind a VAST document, all made at bench start.
import { execFile } from "node:child_process";
import { createReadStream } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { promisify } from "node:util";
import { b64 } from "../test/harness/stack.ts";
import { buildZip } from "../test/harness/zip.ts";

const run = promisify(execFile);

export const AD = `<div style="width:300px;height:250px;background:linear-gradient(#06c,#0a4);color:#fff;font:24px sans-serif">Bench ad</div>`;
export const AD_BOX = { width: 300, height: 250 };
/** A 12 s banner: six 2 s slides moving in and out (CSS), then still. */
export const ANIMATED_12S = `<div style="width:300px;height:250px;overflow:hidden;position:relative;background:#fff;font:20px sans-serif">
<div style="position:absolute;left:0;top:0;width:300px;height:250px;background:#06c;color:#fff;animation:s 2s linear 6">Slide</div></div>
<style>@keyframes s{from{transform:translateX(-300px)}50%{transform:translateX(0)}to{transform:translateX(300px)}}</style>`;
/** The page the floor loads: the creative alone, where the tag scanner places it inline in a host page. */
export const AD_PAGE = `<!doctype html><html><body style="margin:0">${AD}</body></html>`;
export const TAG_BODY = { data: b64(AD) };
export const ZIP_BODY = {
  data: buildZip({
    "index.html": `<!doctype html><meta name="ad.size" content="width=300,height=250"><script>var clickTag="https://example.com"</script><body style="margin:0">${AD}</body>`,
  }).toString("base64"),
};

/** x264 defaults (a 10 s GOP, so the poster's seek decodes most of one GOP), 1.5 Mb/s video, 128 kb/s AAC. */
export async function makeVideo(dir: string): Promise<string> {
  const media = join(dir, "ad.mp4");
  await run("ffmpeg", [
    "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=25:duration=15", "-f", "lavfi", "-i", "sine=frequency=440:duration=15",
    "-c:v", "libx264", "-preset", "veryfast", "-b:v", "1500k", "-c:a", "aac", "-b:a", "128k", "-movflags", "+faststart", "-shortest", media,
  ]);
  return media;
}

export interface VastServer {
  /** The VAST document's URL. */
  url: string;
  close(): void;
}

export async function serveVast(media: string): Promise<VastServer> {
  const server = http.createServer((req, res) => {
    if (req.url === "/ad.mp4") {
      res.writeHead(200, { "content-type": "video/mp4" });
      createReadStream(media).pipe(res);
      return;
    }
    if (req.url === "/imp") {
      res.writeHead(204).end();
      return;
    }
    const port = (server.address() as AddressInfo).port;
    res.writeHead(200, { "content-type": "application/xml", "access-control-allow-origin": "*" });
    res.end(`<?xml version="1.0"?><VAST version="4.1"><Ad id="b"><InLine><AdSystem>bench</AdSystem><AdTitle>bench</AdTitle><Impression>http://127.0.0.1:${port}/imp</Impression><Creatives><Creative><Linear><Duration>00:00:15</Duration><MediaFiles><MediaFile delivery="progressive" type="video/mp4" width="1280" height="720" bitrate="1500">http://127.0.0.1:${port}/ad.mp4</MediaFile></MediaFiles></Linear></Creative></Creatives></InLine></Ad></VAST>`);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/vast.xml`, close: () => server.close() };
}

/**
 * The floor of a VAST scan: what any prober must do for this file — describe it (ffprobe), decode its audio for the
 * loudness (an audio-only ebur128 pass), and, since photosensitivity is judged on the rendition the analyzer flags
 * (WCAG 2.3.1 counts flashes in every frame; issue 25), decode every frame of that rendition (here the only one) —
 * the two decodes side by side, as on two cores. Before the flash analysis the floor was the first two alone.
 */
export async function mediaFloor(media: string): Promise<number> {
  const t = performance.now();
  await run("ffprobe", ["-v", "error", "-print_format", "json", "-show_format", "-show_streams", media]);
  await Promise.all([
    run("ffmpeg", ["-nostdin", "-v", "info", "-nostats", "-vn", "-i", media, "-map", "0:a:0", "-af", "ebur128=peak=true:framelog=verbose", "-f", "null", "-"]),
    run("ffmpeg", ["-nostdin", "-v", "error", "-an", "-i", media, "-map", "0:v:0", "-f", "null", "-"]),
  ]);
  return performance.now() - t;
}
