import { execFile } from "node:child_process";
import { createReadStream, existsSync, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join, normalize } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** Runs ffmpeg to make a fixture; arguments are the test's own, never user input. */
export async function ffmpeg(...args: string[]): Promise<void> {
  await run("ffmpeg", ["-hide_banner", "-nostdin", "-v", "error", "-y", ...args], { timeout: 60_000 });
}

/**
 * Fixture media with known truth. Pictures come from testsrc2 (busy, never black); tones from aevalsrc with an exact
 * amplitude, so their loudness is known from theory (see the loudness test).
 */
export async function makeMedia(dir: string): Promise<void> {
  const x264 = ["-c:v", "libx264", "-preset", "ultrafast", "-crf", "38", "-pix_fmt", "yuv420p"];
  // 1 kHz sine, peak amplitude 0.1 (-20 dBFS), mono.
  const tone = ["-f", "lavfi", "-i", "aevalsrc=0.1*sin(2*PI*1000*t):s=48000:d=2.5"];
  await ffmpeg("-f", "lavfi", "-i", "testsrc2=s=1280x720:r=25:d=2.5", ...tone, ...x264, "-c:a", "aac", "-b:a", "128k",
    "-shortest", "-movflags", "+faststart", join(dir, "faststart.mp4"));
  await ffmpeg("-f", "lavfi", "-i", "testsrc2=s=1280x720:r=25:d=2", ...tone, ...x264, "-c:a", "aac", "-b:a", "96k",
    "-shortest", join(dir, "moov-end.mp4"));
  // 1280x540 picture in a 1280x720 frame: 90 px black bars top and bottom. No audio: also the silent-video case.
  await ffmpeg("-f", "lavfi", "-i", "testsrc2=s=1280x540:r=25:d=2", "-vf", "pad=1280:720:0:90:black", ...x264, "-an",
    join(dir, "letterbox.mp4"));
  // Stereo 1 kHz sine, peak amplitude 0.1 on both channels, as MP3: audio only.
  await ffmpeg("-f", "lavfi", "-i", "aevalsrc=0.1*sin(2*PI*1000*t)|0.1*sin(2*PI*1000*t):s=44100:d=2.5",
    "-c:a", "libmp3lame", "-b:a", "128k", join(dir, "tone.mp3"));
  // 0.6 s of black, then picture: the first visible frame is not the first frame.
  await ffmpeg("-f", "lavfi", "-i", "color=black:s=320x240:r=25:d=0.6", "-f", "lavfi", "-i", "testsrc2=s=320x240:r=25:d=1",
    "-filter_complex", "[0][1]concat=n=2:v=1:a=0", ...x264, join(dir, "black-intro.mp4"));
  // Entirely black: there is no visible frame, the screenshot falls back to the poster.
  await ffmpeg("-f", "lavfi", "-i", "color=black:s=320x240:r=25:d=1", ...x264, join(dir, "all-black.mp4"));
  // VP9/Opus WebM, small: container name and mime from the EBML DocType.
  await ffmpeg("-f", "lavfi", "-i", "testsrc2=s=320x180:r=15:d=1", "-f", "lavfi", "-i", "sine=f=440:d=1",
    "-c:v", "libvpx-vp9", "-deadline", "realtime", "-b:v", "200k", "-c:a", "libopus", join(dir, "small.webm"));
}

export interface FixtureServer {
  base: string;
  /** Paths requested so far (to prove a playlist was not followed). */
  requests: string[];
  close(): Promise<void>;
}

/**
 * Serves files from `dir` and, under /corpus/, from the shared corpus; plus the hostile cases: a playlist, HTML posing
 * as MP4, a 404, a server that never answers.
 */
export async function startFixtureServer(dir: string, corpusDir?: string): Promise<FixtureServer> {
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname);
    requests.push(path);
    if (path === "/hang") return; // accept, never answer
    if (path === "/playlist.m3u8") {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      res.writeHead(200, { "content-type": "application/vnd.apple.mpegurl" });
      res.end(`#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXTINF:2.0,\n${base}/segment0.ts\n#EXT-X-ENDLIST\n`);
      return;
    }
    if (path === "/huge.mp4" || path === "/huge-chunked.mp4") {
      // A "2 GB" file: declared honestly, or streamed without a length (a lying server); zeros until cut off.
      res.writeHead(200, path === "/huge.mp4" ? { "content-type": "video/mp4", "content-length": String(2 * 1024 ** 3) } : { "content-type": "video/mp4" });
      const chunk = Buffer.alloc(64 * 1024);
      const pump = () => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once("drain", pump);
      };
      res.on("close", () => res.removeAllListeners("drain"));
      pump();
      return;
    }
    if (path === "/page.mp4") {
      res.writeHead(200, { "content-type": "video/mp4" });
      res.end("<!DOCTYPE html><html><head><title>Not found</title></head><body>sorry</body></html>");
      return;
    }
    const file = path.startsWith("/corpus/") && corpusDir
      ? join(corpusDir, normalize(path.slice("/corpus/".length)).replace(/^(\.\.[/\\])+/, ""))
      : join(dir, normalize(path).replace(/^(\.\.[/\\])+/, ""));
    if (!existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404, { "content-type": "text/plain" });
      res.end("not found");
      return;
    }
    res.writeHead(200, { "content-type": "application/octet-stream", "content-length": String(statSync(file).size) });
    createReadStream(file).pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export const isJpeg = (b: Uint8Array) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff;
export const isPng = (b: Uint8Array) => Buffer.from(b.subarray(0, 8)).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));

/** Width and height from a JPEG's first start-of-frame marker. */
export function jpegSize(b: Uint8Array): { width: number; height: number } | undefined {
  let i = 2;
  while (i + 9 < b.length) {
    if (b[i] !== 0xff) return undefined;
    const marker = b[i + 1]!;
    const len = (b[i + 2]! << 8) | b[i + 3]!;
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { height: (b[i + 5]! << 8) | b[i + 6]!, width: (b[i + 7]! << 8) | b[i + 8]! };
    }
    i += 2 + len;
  }
  return undefined;
}
