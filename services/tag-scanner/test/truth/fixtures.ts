// The world the truth corpus runs in: one plain-HTTP and one HTTPS fixture server on loopback, reached under named
// hosts (Chromium treats 127.0.0.1 as a secure origin and would hide mixed content), real media made with ffmpeg,
// and a scanner whose egress proxy resolves those names to loopback.
import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { createMemoryArtifactSink, createOutboundPolicy, staticHostResolver } from "@cva/platform";
import { PNG } from "pngjs";
import { type BrowserPool, createBrowserPool, createTagScanner, type TagScanner } from "../../src/index.ts";
import type { Device } from "@cva/contracts";
import { PIXEL_GIF, tagJob } from "../helpers.ts";

export const HOSTS = ["ads.example", "cdn.example", "track.example", "click.example", "landing.example", "frame.example"] as const;
export type Host = (typeof HOSTS)[number];

/** Where the scanner serves the creative's host page; relative URLs in a tag resolve against it. */
export const CREATIVE_PAGE = "https://creative.cva.invalid/";

export interface Fixtures {
  /** `http://<host>:<httpPort><path>` */
  http(host: Host, path: string): string;
  /** `https://<host>:<httpsPort><path>` */
  https(host: Host, path: string): string;
  /** Serves `html` as a page of its own (an iframe's document) and returns its https URL on `host`. */
  page(host: Host, html: string): string;
  /** The landing page every click-through of the corpus ends on (`<title>Landing</title>`). */
  landing: string;
  /**
   * How late the fixture server itself answered a `?delay=` URL containing `part` (ms past its own delay; 0 if never
   * late). On a loaded machine the server's timer fires late: the creative then really changes later, and a truth
   * stated from the delay moves with it.
   */
  lateMs(part: string): number;
  close(): Promise<void>;
}

const LANDING_HTML = `<!doctype html><html><head><title>Landing</title></head>
<body style="font-family:sans-serif"><h1>Spring sale</h1><p>Everything 20 % off this week.</p></body></html>`;

const SCRIPTS: Record<string, string> = {
  "/js/lib.js": "window.adLib = { ready: true };",
  // A measurement vendor's script dropping its own id: a first-party cookie of whatever frame runs it.
  "/js/cookie.js": `document.cookie = "fp_id=42; Max-Age=3600; Path=/; SameSite=None; Secure";`,
};

const MEDIA_TYPES: Record<string, string> = { ".gif": "image/gif", ".webp": "image/webp", ".png": "image/png", ".webm": "video/webm", ".svg": "image/svg+xml" };

// Animated SVG artwork as ad servers ship it (an <img> or a CSS background): the motion lives inside the image.
const svgArt = (inner: string) => Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="300" height="250" viewBox="0 0 300 250">
<rect width="300" height="250" fill="#1d3557"/>${inner}</svg>`);
const SVGS: Record<string, Buffer> = {
  // A badge that grows from 1 s to 3 s after the image starts (SMIL begin="1s" dur="2s", frozen at its end).
  "/img/badge-smil.svg": svgArt(`<circle cx="220" cy="125" r="10" fill="#e63946"><animate attributeName="r" from="10" to="60" begin="1s" dur="2s" fill="freeze"/></circle>`),
  // Two steps chained by syncbase: a bar slides in (0.5–1.5 s), then the logo fades in once it ends (+0.5 s, 1 s long).
  "/img/chain-smil.svg": svgArt(`<rect x="-200" y="180" width="200" height="30" fill="#f1faee"><animate id="bar" attributeName="x" from="-200" to="50" begin="0.5s" dur="1s" fill="freeze"/></rect>
<circle cx="150" cy="90" r="40" fill="#ffb400" opacity="0"><animate attributeName="opacity" from="0" to="1" begin="bar.end+0.5s" dur="1s" fill="freeze"/></circle>`),
  // A CSS pulse inside the image, three 1 s iterations after a 0.5 s delay.
  "/img/pulse-css.svg": svgArt(`<style>@keyframes p { 50% { transform: scale(1.4) } } .dot { transform-origin: 150px 125px; animation: p 1s linear 0.5s 3 }</style>
<circle class="dot" cx="150" cy="125" r="30" fill="#e63946"/>`),
  // A loader ring spinning forever.
  "/img/spin-smil.svg": svgArt(`<g><circle cx="150" cy="125" r="40" stroke="#f1faee" stroke-width="8" fill="none" stroke-dasharray="160 90"/>
<animateTransform attributeName="transform" type="rotate" from="0 150 125" to="360 150 125" dur="1.2s" repeatCount="indefinite"/></g>`),
};

// Media must really play (a GIF that animates, a video that decodes), so it is made by ffmpeg, once per test file.
function makeMedia(dir: string): Record<string, Buffer> {
  const run = (args: string[]) => execFileSync("ffmpeg", ["-v", "error", ...args], { timeout: 60_000 });
  // Three flat frames, 1 s each (red, green, blue). At 10 fps the gif muxer writes exact 10 cs delays (at 1 fps it
  // writes 1 cs); the repeated frames encode as empty deltas, so the pixels change only at 1 s and 2 s.
  const frames = ["red", "lime", "blue"].map((c, i) => `color=c=${c}:s=300x250:r=10:d=1[f${i}]`).join(";") + ";[f0][f1][f2]concat=n=3:v=1:a=0";
  // -loop -1: no NETSCAPE2.0 block, the GIF plays once; -loop 0: NETSCAPE loop count 0, forever; -loop 1: loop
  // count 1, which Chromium reads as one repetition (two plays).
  const loops = { once: -1, loop: 0, twice: 1 };
  for (const [name, n] of Object.entries(loops)) run(["-f", "lavfi", "-i", frames, "-loop", String(n), "-y", path.join(dir, `${name}.gif`)]);
  // The same frames as animated WebP (libwebp merges the repeats: 3 frames of 1 s) and APNG (30 frames of 100 ms,
  // the repeats empty). At 1 fps the WebP muxer writes 0 ms durations, which Chromium shows as 100 ms.
  run(["-f", "lavfi", "-i", frames, "-c:v", "libwebp_anim", "-lossless", "1", "-loop", "1", "-y", path.join(dir, "once.webp")]);
  run(["-f", "lavfi", "-i", frames, "-c:v", "libwebp_anim", "-lossless", "1", "-loop", "0", "-y", path.join(dir, "loop.webp")]);
  run(["-f", "lavfi", "-i", frames, "-f", "apng", "-plays", "1", "-y", path.join(dir, "once.png")]);
  // 3 s of testsrc2 (something moves in every frame), VP8 like a real video ad.
  run(["-f", "lavfi", "-i", "testsrc2=s=300x250:r=15:d=3", "-c:v", "libvpx", "-b:v", "300k", "-pix_fmt", "yuv420p", "-y", path.join(dir, "ad.webm")]);
  return {
    "/anim-once.gif": readFileSync(path.join(dir, "once.gif")),
    "/anim-loop.gif": readFileSync(path.join(dir, "loop.gif")),
    "/anim-twice.gif": readFileSync(path.join(dir, "twice.gif")),
    "/ad.webm": readFileSync(path.join(dir, "ad.webm")),
    "/anim-once.webp": readFileSync(path.join(dir, "once.webp")),
    "/anim-loop.webp": readFileSync(path.join(dir, "loop.webp")),
    "/anim-once.png": readFileSync(path.join(dir, "once.png")),
  };
}

function makeCert(dir: string): { key: Buffer; cert: Buffer } {
  const san = ["IP:127.0.0.1", ...HOSTS.map((h) => `DNS:${h}`)].join(",");
  execFileSync("openssl", [
    "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", path.join(dir, "key.pem"), "-out", path.join(dir, "cert.pem"),
    "-days", "2", "-subj", "/CN=ads.example", "-addext", `subjectAltName=${san}`,
  ], { stdio: "ignore" });
  return { key: readFileSync(path.join(dir, "key.pem")), cert: readFileSync(path.join(dir, "cert.pem")) };
}

/**
 * Generated artwork, `/img/<kind>.png?w=&h=&c=rrggbb`:
 * solid — one colour; framed — a dark 2 px frame baked into light artwork; photo — smooth colour fields plus grain,
 * different at every edge pixel, like a photograph cropped to the banner.
 */
function png(kind: string, w: number, h: number, colour: string): Buffer | undefined {
  const img = new PNG({ width: w, height: h });
  const c = /^[0-9a-f]{6}$/i.test(colour) ? [0, 2, 4].map((i) => parseInt(colour.slice(i, i + 2), 16)) : [0x33, 0x66, 0x99];
  let seed = 7;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      let p: number[];
      if (kind === "solid") p = c;
      else if (kind === "framed") {
        const edge = x < 2 || y < 2 || x >= w - 2 || y >= h - 2;
        const logo = x > w / 3 && x < (2 * w) / 3 && y > h / 3 && y < (2 * h) / 3;
        p = edge ? [0x22, 0x22, 0x22] : logo ? c : [0xf4, 0xf1, 0xea];
      } else if (kind === "photo") {
        const g = () => (rnd() - 0.5) * 60;
        p = [
          120 + 80 * Math.sin(x / 23) + g(),
          110 + 70 * Math.cos(y / 17 + x / 41) + g(),
          100 + 90 * Math.sin((x + y) / 31) + g(),
        ];
      } else return undefined;
      img.data.set([...p.map((v) => Math.max(0, Math.min(255, Math.round(v)))), 255], (y * w + x) * 4);
    }
  }
  return PNG.sync.write(img);
}

export async function startFixtures(): Promise<Fixtures> {
  const tmp = mkdtempSync(path.join(tmpdir(), "truth-"));
  try {
    const media = makeMedia(tmp);
    const tls = makeCert(tmp);
    const pages = new Map<string, string>();
    let httpPort = 0;
    let httpsPort = 0;
    const url = (scheme: "http" | "https", host: Host, p: string) => `${scheme}://${host}:${scheme === "http" ? httpPort : httpsPort}${p}`;
    const landing = () => url("https", "landing.example", "/landing.html");

    const respond = (req: IncomingMessage, res: ServerResponse) => {
      const u = new URL(req.url ?? "/", "http://x");
      const send = (type: string, body: string | Buffer, extra: Record<string, string> = {}) => {
        res.writeHead(200, { "content-type": type, "cache-control": "no-store", "content-length": String(Buffer.byteLength(body)), ...extra });
        res.end(body);
      };
      const p = u.pathname;
      if (p === "/px.gif") return send("image/gif", PIXEL_GIF);
      if (p === "/cookie.gif") return send("image/gif", PIXEL_GIF, { "set-cookie": "tp=1; SameSite=None; Secure; HttpOnly; Max-Age=3600" });
      // SameSite=None without Secure: every current browser refuses it.
      if (p === "/bad-cookie.gif") return send("image/gif", PIXEL_GIF, { "set-cookie": "refused=1; SameSite=None; Max-Age=3600" });
      if (p === "/landing.html") return send("text/html; charset=utf-8", LANDING_HTML);
      if (p === "/click") {
        // A click tracker: counts the click, then redirects; `hops` trackers in a row, the last to `to`.
        const hops = Number(u.searchParams.get("hops") ?? 1);
        const to = u.searchParams.get("to") ?? landing();
        const next = hops > 1 ? `/click?hops=${hops - 1}&to=${encodeURIComponent(to)}` : to;
        res.writeHead(302, { location: next, "cache-control": "no-store" });
        return res.end();
      }
      if (p.startsWith("/p/") && pages.has(p)) return send("text/html; charset=utf-8", pages.get(p)!);
      if (SCRIPTS[p]) return send("text/javascript", SCRIPTS[p]!);
      if (media[p]) return send(MEDIA_TYPES[path.extname(p)] ?? "application/octet-stream", media[p]!);
      if (SVGS[p]) return send("image/svg+xml", SVGS[p]!);
      const img = /^\/img\/(\w+)\.png$/.exec(p);
      const body = img && png(img[1]!, Number(u.searchParams.get("w") ?? 300), Number(u.searchParams.get("h") ?? 250), u.searchParams.get("c") ?? "");
      if (body) return send("image/png", body);
      res.writeHead(404, { "content-type": "text/plain" });
      res.end("not found");
    };
    // `?delay=ms` on any URL: a slow CDN.
    const late = new Map<string, number>();
    // `?hold=ms`: the scanner's own process held that long while the asset loads. The server shares the test's process
    // (and event loop) with the scanner, its interception and its egress proxy, so a synchronous wait here is what a
    // starved host does to them — the measurement must then say the asset came late because of the scanner.
    const handler = (req: IncomingMessage, res: ServerResponse) => {
      const hold = Math.min(5_000, Number(new URL(req.url ?? "/", "http://x").searchParams.get("hold") ?? 0) || 0);
      for (const until = Date.now() + hold; Date.now() < until;) { /* held */ }
      const delay = Math.min(10_000, Number(new URL(req.url ?? "/", "http://x").searchParams.get("delay") ?? 0) || 0);
      if (delay > 0) {
        const due = Date.now() + delay;
        setTimeout(() => {
          const url = req.url ?? "";
          late.set(url, Math.max(late.get(url) ?? 0, Date.now() - due));
          respond(req, res);
        }, delay);
      } else respond(req, res);
    };
    const plain = createHttpServer(handler);
    const secure = createHttpsServer(tls, handler);
    const listen = (s: Server) => new Promise<number>((r) => s.listen(0, "127.0.0.1", () => r((s.address() as AddressInfo).port)));
    httpPort = await listen(plain);
    httpsPort = await listen(secure);
    const close = (s: Server) => new Promise<void>((r) => { s.closeAllConnections(); s.close(() => r()); });

    return {
      http: (host, p) => url("http", host, p),
      https: (host, p) => url("https", host, p),
      lateMs: (part) => Math.max(0, ...[...late].filter(([u]) => u.includes(part)).map(([, ms]) => ms)),
      page(host, html) {
        const p = `/p/${createHash("sha256").update(html).digest("hex").slice(0, 16)}.html`;
        pages.set(p, html);
        return url("https", host, p);
      },
      landing: landing(),
      async close() {
        await Promise.all([close(plain), close(secure)]);
        rmSync(tmp, { recursive: true, force: true });
      },
    };
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    throw err;
  }
}

// 20 s of render from when scan() is called: room for a slow setup on a loaded machine before the longest finite
// case (a 6 s slideshow) and its hold window; the endless cases that cannot be proven endless run to it.
export const TRUTH_TIMEOUTS = { renderMs: 20_000, stepMs: 4_000, landingMs: 8_000 };

/**
 * A scanner as production runs it (default quiet/settle windows), on one browser with `slots` concurrent scans.
 * The certificate is self-signed, hence --ignore-certificate-errors (test-only, as in tls.test.ts).
 */
type Log = (o: object, m?: string) => void;
interface ScanLog { info: Log; warn: Log; error: Log; child(b: object): ScanLog }
/** Each scan's log lines, by job id: a failing row shows its own (phase times, how the render watch ended). */
const logLines = new Map<string, string[]>();
function scanLog(bindings: Record<string, unknown>): ScanLog {
  const log: Log = (o, m) => {
    const line = `${m ?? ""} ${JSON.stringify({ ...bindings, ...o })}`;
    const id = String(bindings.job_id ?? "");
    const lines = logLines.get(id) ?? [];
    if (lines.length < 20) lines.push(line);
    logLines.set(id, lines);
    // CVA_SCAN_LOG=1 prints every scan's lines as they come.
    if (process.env.CVA_SCAN_LOG) process.stderr.write(`${line}\n`);
  };
  return { info: log, warn: log, error: log, child: (b) => scanLog({ ...bindings, ...b }) };
}

export function makeScanner(slots: number): { scanner: TagScanner; pool: BrowserPool; close(): Promise<void> } {
  const pool = createBrowserPool({ browsers: 1, slots, extraArgs: ["--ignore-certificate-errors"] });
  const resolve = staticHostResolver(Object.fromEntries(HOSTS.map((h) => [h, "127.0.0.1"])));
  const scanner = createTagScanner({
    pool, artifacts: createMemoryArtifactSink(), location: "usa",
    policy: createOutboundPolicy(["127.0.0.0/8", "::1/128"], { resolve }),
    timeouts: TRUTH_TIMEOUTS,
    logger: scanLog({}),
  });
  return { scanner, pool, close: () => pool.close() };
}

/**
 * A row's failure message: what differs from the truth, then the scan's own log (the paints and pixel-change times
 * a duration came from, how the render watch ended) — a CI failure must say where to look without a rerun.
 */
export function failureOf(c: { id: string; pattern: string }, diff: string[], jobId: string): string {
  return `${c.id} (${c.pattern}):\n  ${diff.join("\n  ")}\n  scan log:\n    ${(logLines.get(jobId) ?? []).join("\n    ")}`;
}

/** The scan job of a corpus case; its job id names the case, so the scan log (CVA_SCAN_LOG=1) says which is which. */
export function caseJob(c: { id: string; html: (f: Fixtures) => string; landing?: boolean; device?: Device }, f: Fixtures) {
  const job = tagJob(c.html(f), { landing: c.landing ?? false, ...(c.device ? { device: c.device } : {}) });
  job.jobId = `${c.id}-${job.jobId}`;
  return job;
}
