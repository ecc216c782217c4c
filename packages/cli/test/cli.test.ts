// `cva scan` against a local HTTP server that records what it is sent and answers as the API would: the request each
// kind makes (JSON with base64, or multipart for a large media file), the retries with one Idempotency-Key, the exit
// statuses, and that `npx cva` in this clone runs this package (an unrelated `cva` exists on the registry). The real
// stack runs it in test/e2e/console-cases.ts.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { MULTIPART_ABOVE_BYTES } from "../src/api.mjs";
import { main } from "../src/main.mjs";

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

const report = (tests: Record<string, { result: string }>) => ({
  job_id: "job-1",
  name: "n",
  scan_results: { passed: 0, failed: 0, report_url: "http://edge.test/r/tok", tests: Object.fromEntries(Object.entries(tests).map(([id, t]) => [id, { test: id, name: id, message: `${id} ${t.result}`, ...t }])) },
});

describe("cva scan against a recording server", () => {
  let server: http.Server;
  let base: string;
  let dir: string;
  const seen: Seen[] = [];
  let answers: Array<{ status: number; body: unknown; headers?: Record<string, string> }> = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "cva-cli-"));
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        seen.push({ method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks) });
        const a = answers.shift() ?? { status: 200, body: report({ ssl: { result: "passed" } }) };
        res.writeHead(a.status, { "content-type": "application/json", ...a.headers }).end(JSON.stringify(a.body));
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((r) => server.close(r));
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => {
    seen.length = 0;
    answers = [];
  });

  async function run(argv: string[], env: Record<string, string> = {}) {
    let stdout = "";
    let stderr = "";
    const code = await main(argv, {
      env: { CVA_API_KEY: "k-1", CVA_BASE_URL: base, ...env },
      stdout: { write: (s: string) => (stdout += s) },
      stderr: { write: (s: string) => (stderr += s) },
      cwd: dir,
    });
    return { code, stdout, stderr };
  }

  it("sends an ad tag file as base64 JSON to /v3/scanTag with the v3 fields, the key and an Idempotency-Key", async () => {
    writeFileSync(join(dir, "tag.html"), "<div>é</div>");
    const r = await run(["scan", "tag.html", "--spec", "1", "--workspace", "42"]);
    expect(r.code, r.stderr).toBe(0);
    expect(seen).toHaveLength(1);
    const [req] = seen;
    expect(req).toMatchObject({ method: "POST", url: "/v3/scanTag" });
    expect(req!.headers).toMatchObject({ "x-apikey": "k-1", "content-type": "application/json", "idempotency-key": expect.stringMatching(/^cva-cli-[0-9a-f-]{36}$/), "user-agent": expect.stringMatching(/^cva-cli\/1\.0\.0 /) });
    expect(JSON.parse(req!.body.toString())).toEqual({ data: Buffer.from("<div>é</div>").toString("base64"), spec_id: 1, workspace_id: 42, name: "tag.html" });
    expect(r.stdout).toContain("PASSED: all 1 tests passed");
  });

  it("sends a VAST URL to /v3/scanVAST, a zip to /v3/scanZip, a small image as JSON to /v3/scanImage", async () => {
    await run(["scan", "https://ads.example/vast.xml?id=1", "--name", "v"]);
    writeFileSync(join(dir, "b.zip"), Buffer.from("PK\x03\x04rest", "binary"));
    await run(["scan", "b.zip"]);
    writeFileSync(join(dir, "logo.bin"), Buffer.from("\x89PNG\r\n\x1a\nrest", "binary"));
    await run(["scan", "logo.bin"]);
    // A media file by URL: the server fetches it (the media scans' `url` field).
    await run(["scan", "https://cdn.example/spot.mp4", "--kind", "video"]);
    expect(seen.map((s) => s.url)).toEqual(["/v3/scanVAST", "/v3/scanZip", "/v3/scanImage", "/v3/scanVideo"]);
    expect(JSON.parse(seen[3]!.body.toString())).toEqual({ url: "https://cdn.example/spot.mp4", spec_id: 0, name: "https://cdn.example/spot.mp4" });
    expect((await run(["scan", "https://cdn.example/tag.html", "--kind", "tag"])).stderr).toMatch(/an ad tag must be a local file/);
    expect(seen).toHaveLength(4);
    expect(JSON.parse(seen[0]!.body.toString())).toEqual({ data: Buffer.from("https://ads.example/vast.xml?id=1").toString("base64"), spec_id: 0, name: "v" });
    expect(JSON.parse(seen[2]!.body.toString()).data).toBe(Buffer.from("\x89PNG\r\n\x1a\nrest", "binary").toString("base64"));
  });

  it("sends a media file over the JSON limit as multipart/form-data with a file part, streamed from disk", async () => {
    const big = join(dir, "master.mov");
    writeFileSync(big, Buffer.concat([Buffer.from([0, 0, 0, 0x14]), Buffer.from("ftypqt  "), Buffer.alloc(8)]));
    truncateSync(big, MULTIPART_ABOVE_BYTES + 1);
    const r = await run(["scan", "master.mov", "--workspace", "3"]);
    expect(r.code, r.stderr).toBe(0);
    const req = seen[0]!;
    expect(req.url).toBe("/v3/scanVideo");
    const boundary = /^multipart\/form-data; boundary=(.+)$/.exec(req.headers["content-type"] ?? "")?.[1];
    expect(boundary).toBeDefined();
    const parts = req.body.toString("latin1").split(`--${boundary}`).slice(1, -1);
    const byName = new Map(parts.map((p) => [/name="([^"]+)"/.exec(p)![1]!, p]));
    expect([...byName.keys()].sort()).toEqual(["file", "name", "spec_id", "workspace_id"]);
    expect(byName.get("file")).toMatch(/filename="master\.mov"/);
    expect(byName.get("workspace_id")).toMatch(/\r\n\r\n3\r\n$/);
    expect(req.body.length).toBeGreaterThan(MULTIPART_ABOVE_BYTES);
  });

  it("answers 1 when a test failed or could not be evaluated, 2 with the API's error_type and message", async () => {
    writeFileSync(join(dir, "t.html"), "<p>x</p>");
    answers = [{ status: 200, body: report({ a: { result: "passed" }, b: { result: "failed" } }) }];
    expect((await run(["scan", "t.html"])).code).toBe(1);
    answers = [{ status: 200, body: report({ a: { result: "error" } }) }];
    expect((await run(["scan", "t.html"])).code).toBe(1);
    answers = [{ status: 400, body: { error_type: "payload_error", message: "data: the ad tag is blank" } }];
    const r = await run(["scan", "t.html", "--format", "json"]);
    expect(r).toMatchObject({ code: 2, stderr: "cva: payload_error: data: the ad tag is blank\n", stdout: '{"error_type":"payload_error","message":"data: the ad tag is blank"}\n' });
    answers = [{ status: 404, body: { error_type: "invalid_endpoint", message: "no endpoint POST /v3/scanAudio" } }];
    writeFileSync(join(dir, "spot.mp3"), Buffer.from("ID3\x03rest", "binary"));
    expect(await run(["scan", "spot.mp3"])).toMatchObject({ code: 2, stderr: "cva: invalid_endpoint: no endpoint POST /v3/scanAudio\n", stdout: "" });
    answers = [{ status: 200, body: { job_id: "x" } }];
    expect((await run(["scan", "t.html"])).stderr).toMatch(/unexpected_report: the report has no scan_results/);
  });

  it("retries no worker resources after Retry-After and a 503, with the same Idempotency-Key", async () => {
    writeFileSync(join(dir, "t.html"), "<p>x</p>");
    answers = [
      { status: 400, body: { error_type: "processing_error", message: "no worker resources available; retry later" }, headers: { "retry-after": "1" } },
      { status: 503, body: { error_type: "processing_error", message: "closing" } },
    ];
    const r = await run(["scan", "t.html"]);
    expect(r.code, r.stderr).toBe(0);
    expect(seen).toHaveLength(3);
    expect(new Set(seen.map((s) => s.headers["idempotency-key"])).size).toBe(1);
    expect(r.stderr).toMatch(/processing_error: no worker resources available; retry later; retrying in 1 s \(1\/2\)/);
    // A processing_error without Retry-After is the scan's own failure: not retried.
    answers = [{ status: 400, body: { error_type: "processing_error", message: "the scan could not be completed" } }];
    seen.length = 0;
    expect((await run(["scan", "t.html"])).code).toBe(2);
    expect(seen).toHaveLength(1);
  });

  it("refuses what it cannot scan before sending anything", async () => {
    writeFileSync(join(dir, "data.bin"), Buffer.from([1, 2, 3, 4, 5]));
    writeFileSync(join(dir, "vast.xml"), '<?xml version="1.0"?><VAST version="4.0"/>');
    writeFileSync(join(dir, "empty.html"), "");
    expect((await run(["scan", "data.bin"])).stderr).toMatch(/cannot tell what kind of creative data\.bin is .*; pass --kind/);
    expect((await run(["scan", "vast.xml"])).stderr).toMatch(/a VAST tag is scanned from its URL/);
    expect((await run(["scan", "missing.zip"])).stderr).toBe("cva: cannot read missing.zip: no such file\n");
    expect((await run(["scan", "empty.html"])).stderr).toMatch(/empty\.html is empty/);
    expect((await run(["scan", "t.html"], { CVA_API_KEY: "" })).stderr).toMatch(/set CVA_API_KEY/);
    expect((await run(["scan", "t.html", "--bogus"])).code).toBe(2);
    // No command at all (a pipeline step whose arguments were lost) fails as a misuse, not as help.
    const bare = await run([]);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toMatch(/no command given.*\n.*cva --help/s);
    expect(seen).toEqual([]);
    // --kind overrides detection.
    expect((await run(["scan", "data.bin", "--kind", "audio"])).code).toBe(0);
    expect(seen[0]!.url).toBe("/v3/scanAudio");
  });

  it("writes --output and prints the text summary", async () => {
    writeFileSync(join(dir, "t.html"), "<p>x</p>");
    const r = await run(["scan", "t.html", "--format", "junit", "--output", "out/../junit.xml"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^cva scan t\.html → POST \/v3\/scanTag \(spec 0\)\n/);
    const { readFileSync } = await import("node:fs");
    expect(readFileSync(join(dir, "junit.xml"), "utf8")).toMatch(/^<\?xml/);
  });
});

describe("npx cva in this clone", () => {
  it("runs this repository's CLI, not a registry package", async () => {
    const out = await new Promise<{ code: number; stdout: string }>((resolve) => {
      execFile("npx", ["--no-install", "cva", "--help"], { cwd: repoRoot, timeout: 60_000, env: { ...process.env, npm_config_update_notifier: "false" } }, (err, stdout) =>
        resolve({ code: err ? Number(err.code) : 0, stdout }),
      );
    });
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/^Usage: cva scan <creative> \[options\]/);
  });
});
