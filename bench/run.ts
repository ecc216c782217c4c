// `npm run bench`: performance figures, each printed beside a baseline measured in the same run on the same machine.
// Never part of `npm test`. Sections whose services are not available print why instead of a number.
import { execFile } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import autocannon from "autocannon";
import { b64, postJson, startStack, type TestStack } from "../test/harness/stack.ts";
import { buildZip } from "../test/harness/zip.ts";

const run = promisify(execFile);
const rows: Array<[string, string, string]> = [];
const row = (figure: string, value: string, baseline: string) => {
  rows.push([figure, value, baseline]);
  process.stderr.write(`  ${figure}: ${value}  (baseline: ${baseline})\n`);
};
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
};
const ms = (n: number) => `${Math.round(n)} ms`;

const AD = `<div style="width:300px;height:250px;background:linear-gradient(#06c,#0a4);color:#fff;font:24px sans-serif">Bench ad</div>`;

async function edgeRejects(stack: TestStack) {
  const fire = (url: string) =>
    new Promise<autocannon.Result>((resolve, reject) =>
      autocannon({ url, method: "POST", connections: 20, duration: 5, headers: { "content-type": "application/json" }, body: "{}" }, (err, res) => (err ? reject(err) : resolve(res))),
    );
  // Baseline: the smallest possible Node HTTP server answering the same 401 body.
  const bare = http.createServer((_, res) => {
    res.writeHead(401, { "content-type": "application/json" });
    res.end('{"error_type":"authentication_error","message":"X-ApiKey header is missing"}');
  });
  await new Promise<void>((r) => bare.listen(0, "127.0.0.1", r));
  const base = await fire(`http://127.0.0.1:${(bare.address() as AddressInfo).port}/v3/scanTag`);
  bare.close();
  const edge = await fire(`${stack.baseUrl}/v3/scanTag`);
  row("edge: unauthenticated rejects/s", `${Math.round(edge.requests.average)} req/s (p99 ${edge.latency.p99} ms)`, `${Math.round(base.requests.average)} req/s bare node:http`);
}

async function scanLatency(stack: TestStack, key: string, path: string, body: object, n: number, concurrency: number) {
  const times: number[] = [];
  let failures = 0;
  const started = Date.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        next++;
        const t = Date.now();
        const r = await postJson(`${stack.baseUrl}${path}`, body, key);
        if (r.status === 200) times.push(Date.now() - t);
        else failures++;
      }
    }),
  );
  return { times, failures, perMinute: (times.length / ((Date.now() - started) / 1000)) * 60 };
}

async function tagBench(stack: TestStack, key: string) {
  const warm = await postJson(`${stack.baseUrl}/v3/scanTag`, { data: b64(AD) }, key);
  if (warm.status !== 200) return row("tag scan", `n/a (${warm.status} ${warm.json?.message ?? ""})`, "-");
  const seq = await scanLatency(stack, key, "/v3/scanTag", { data: b64(AD) }, 10, 1);
  const par = await scanLatency(stack, key, "/v3/scanTag", { data: b64(AD) }, 20, 4);
  // Baseline: a fresh browser per scan, as naive scanners do.
  const dir = mkdtempSync(join(tmpdir(), "cva-bench-"));
  writeFileSync(join(dir, "ad.html"), `<!doctype html><body style="margin:0">${AD}</body>`);
  const base: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t = Date.now();
    await run("chromium", ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", `--user-data-dir=${join(dir, `u${i}`)}`, `--screenshot=${join(dir, "s.png")}`, "--window-size=300,250", `file://${join(dir, "ad.html")}`]);
    base.push(Date.now() - t);
  }
  rmSync(dir, { recursive: true, force: true });
  row("tag scan p50 (1 client)", ms(pct(seq.times, 50)), `${ms(pct(base, 50))} chromium --headless --screenshot`);
  row("tag scan p95 (1 client)", ms(pct(seq.times, 95)), `${ms(pct(base, 95))} chromium --headless --screenshot`);
  row("tag scans/min (4 clients)", `${par.perMinute.toFixed(1)} (${par.failures} refused)`, `${(60_000 / pct(base, 50)).toFixed(1)} browser-per-scan, 1 at a time`);
  return pct(seq.times, 50);
}

async function zipBench(stack: TestStack, key: string, tagP50: number | undefined) {
  const zip = buildZip({ "index.html": `<!doctype html><meta name="ad.size" content="width=300,height=250"><script>var clickTag="https://example.com"</script><body style="margin:0">${AD}</body>` });
  const warm = await postJson(`${stack.baseUrl}/v2/scanZip`, { data: zip.toString("base64") }, key);
  if (warm.status !== 200) return row("zip scan", `n/a (${warm.status} ${warm.json?.message ?? ""})`, "-");
  const r = await scanLatency(stack, key, "/v2/scanZip", { data: zip.toString("base64") }, 10, 1);
  row("zip scan p50", ms(pct(r.times, 50)), tagP50 ? `${ms(tagP50)} static tag scan (goal: ≤ tag + 300 ms)` : "tag n/a");
}

async function vastBench(stack: TestStack, key: string) {
  const dir = mkdtempSync(join(tmpdir(), "cva-bench-"));
  const media = join(dir, "ad.mp4");
  await run("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=25:duration=15", "-f", "lavfi", "-i", "sine=frequency=440:duration=15", "-c:v", "libx264", "-preset", "veryfast", "-b:v", "1500k", "-c:a", "aac", "-b:a", "128k", "-movflags", "+faststart", "-shortest", media]);
  const server = http.createServer((req, res) => {
    if (req.url === "/ad.mp4") {
      res.writeHead(200, { "content-type": "video/mp4" });
      return void import("node:fs").then((fs) => fs.createReadStream(media).pipe(res));
    }
    const port = (server.address() as AddressInfo).port;
    res.writeHead(200, { "content-type": "application/xml", "access-control-allow-origin": "*" });
    res.end(`<?xml version="1.0"?><VAST version="4.1"><Ad id="b"><InLine><AdSystem>bench</AdSystem><AdTitle>bench</AdTitle><Impression>http://127.0.0.1:${port}/imp</Impression><Creatives><Creative><Linear><Duration>00:00:15</Duration><MediaFiles><MediaFile delivery="progressive" type="video/mp4" width="1280" height="720" bitrate="1500">http://127.0.0.1:${port}/ad.mp4</MediaFile></MediaFiles></Linear></Creative></Creatives></InLine></Ad></VAST>`);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/vast.xml`;
  try {
    const warm = await postJson(`${stack.baseUrl}/v3/scanVAST`, { data: b64(url) }, key);
    if (warm.status !== 200) return row("VAST scan", `n/a (${warm.status} ${warm.json?.message ?? ""})`, "-");
    const r = await scanLatency(stack, key, "/v3/scanVAST", { data: b64(url) }, 5, 1);
    // Floor: what any prober must do for this file — ffprobe plus one ebur128 decode.
    const floor: number[] = [];
    for (let i = 0; i < 3; i++) {
      const t = Date.now();
      await run("ffprobe", ["-v", "error", "-print_format", "json", "-show_format", "-show_streams", media]);
      await run("ffmpeg", ["-v", "info", "-nostats", "-i", media, "-filter_complex", "ebur128=peak=true", "-f", "null", "-"]);
      floor.push(Date.now() - t);
    }
    const p = pct(r.times, 50);
    const f = pct(floor, 50);
    row("VAST scan p50 (15 s 1280x720 H.264/AAC)", `${ms(p)} (${(p / f).toFixed(2)}× floor)`, `${ms(f)} ffprobe + ebur128 pass (goal: ≤ 1.5×)`);
  } finally {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const stack = await startStack({ waitForWorkers: ["tag", "zip", "vast", "media"], env: { LOG_LEVEL: "warn" } }).catch(async (err) => {
  process.stderr.write(`could not start the stack with every worker (${(err as Error).message.split("\n")[0]}); starting edge only\n`);
  return startStack({ only: ["auth", "report-store", "edge"] });
});
try {
  const key = await stack.createKey("bench", 1_000_000);
  await edgeRejects(stack);
  const tagP50 = await tagBench(stack, key).catch((e) => void row("tag scan", `n/a (${(e as Error).message})`, "-"));
  await zipBench(stack, key, tagP50 ?? undefined).catch((e) => row("zip scan", `n/a (${(e as Error).message})`, "-"));
  await vastBench(stack, key).catch((e) => row("VAST scan", `n/a (${(e as Error).message})`, "-"));
} finally {
  await stack.stop();
}
const w = [0, 1, 2].map((i) => Math.max(...rows.map((r) => r[i].length), ["figure", "value", "baseline (same run)"][i]!.length));
const line = (r: string[]) => `| ${r.map((c, i) => c.padEnd(w[i]!)).join(" | ")} |`;
console.log(line(["figure", "value", "baseline (same run)"]));
console.log(line(w.map((n) => "-".repeat(n))));
rows.forEach((r) => console.log(line(r)));
