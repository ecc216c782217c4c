// Issue 19: a large raw file is streamed into the uploads bucket, never held by the edge. A 300 MB multipart upload to
// POST /v3/scanVideo of the running stack, with the edge process's resident memory (VmRSS of /proc/<pid>/status)
// sampled every 25 ms from before the upload until the answer: its growth over the warmed-up baseline stays under
// 64 MB. The file is a real 2 s mp4 followed by zero padding (cheap to make; whatever the prober then says about it,
// the edge has streamed all of it). In the `load` project: it moves 300 MB through NATS on purpose.
import { execFile } from "node:child_process";
import { readFileSync, mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStack, type TestStack } from "../harness/stack.ts";

const run = promisify(execFile);
const FILE_BYTES = 300 * 1000 * 1000;
const MAX_GROWTH_BYTES = 64 * 1024 * 1024;

function rssOf(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  if (!m) throw new Error(`no VmRSS for process ${pid}`);
  return Number(m[1]) * 1024;
}

/** A multipart/form-data upload of `head` then zeros up to `total` bytes, written with backpressure. */
function upload(url: string, key: string, head: Buffer, total: number): Promise<{ status: number; body: string }> {
  const boundary = "cvaUploadMemoryBoundary";
  const pre = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="name"\r\n\r\nbig upload\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.mp4"\r\nContent-Type: video/mp4\r\n\r\n`,
  );
  const post = Buffer.from(`\r\n--${boundary}--\r\n`);
  const zeros = Buffer.alloc(1024 * 1024);
  return new Promise((resolve, reject) => {
    const req = http.request(url, {
      method: "POST",
      headers: { "x-apikey": key, "content-type": `multipart/form-data; boundary=${boundary}`, "content-length": String(pre.length + total + post.length) },
    });
    req.on("response", (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    let sent = 0;
    const write = () => {
      while (sent < total) {
        const piece = sent === 0 ? head : zeros.subarray(0, Math.min(zeros.length, total - sent));
        sent += piece.length;
        if (!req.write(sent === piece.length ? Buffer.concat([pre, piece]) : piece)) return void req.once("drain", write);
      }
      req.end(post);
    };
    write();
  });
}

describe("upload memory", () => {
  let stack: TestStack;
  let dir: string;
  let mp4: Buffer;
  let key: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "cva-upload-mem-"));
    await run("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc=size=320x240:rate=25:duration=2", "-f", "lavfi", "-i", "sine=frequency=440:duration=2",
      "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-movflags", "+faststart", "-shortest", join(dir, "head.mp4")]);
    mp4 = readFileSync(join(dir, "head.mp4"));
    stack = await startStack({ only: ["auth", "report-store", "media-prober", "edge"], waitForWorkers: ["media"] });
    key = await stack.createKey("upload-memory", 100);
  }, 180_000);
  afterAll(async () => {
    await stack?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("streams a 300 MB multipart upload with the edge's RSS growing less than 64 MB", async () => {
    const edge = stack.pids().get("edge")!;
    // Warm-up: the same path with a small file, so code loaded on first use does not count as growth.
    const warm = await upload(`${stack.baseUrl}/v3/scanVideo`, key, mp4, mp4.length);
    expect(warm.status, warm.body).toBe(200);
    const baseline = Math.max(rssOf(edge), rssOf(edge), rssOf(edge));
    let peak = baseline;
    const sampler = setInterval(() => {
      try {
        peak = Math.max(peak, rssOf(edge));
      } catch {
        // the process ended: the assertion below says so
      }
    }, 25);
    const started = Date.now();
    let answer: { status: number; body: string };
    try {
      answer = await upload(`${stack.baseUrl}/v3/scanVideo`, key, mp4, FILE_BYTES);
    } finally {
      clearInterval(sampler);
    }
    peak = Math.max(peak, rssOf(edge));
    const growth = peak - baseline;
    console.log(
      `upload-memory: ${FILE_BYTES / 1e6} MB in ${((Date.now() - started) / 1000).toFixed(1)} s; edge RSS baseline ` +
        `${(baseline / 1048576).toFixed(1)} MiB, peak ${(peak / 1048576).toFixed(1)} MiB, growth ${(growth / 1048576).toFixed(1)} MiB; ` +
        `answer ${answer.status} ${answer.body.slice(0, 200)}`,
    );
    // The whole upload went through the edge: the answer is the scan's (a report, or the prober's or the scan's
    // verdict on it), never a refusal of the body.
    expect(answer.body).not.toMatch(/"message":"(body|file):/);
    expect([200, 400]).toContain(answer.status);
    expect(growth).toBeLessThan(MAX_GROWTH_BYTES);
  }, 300_000);
});
