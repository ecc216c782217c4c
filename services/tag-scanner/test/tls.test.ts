// https through the egress proxy (CONNECT, TLS end to end): ssl, ssl_info from the certificate, ssl.compliant.
// The fixture's certificate is self-signed, so this file's browsers are started with --ignore-certificate-errors
// (a test-only flag; production browsers never get it).
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { createMemoryArtifactSink, createOutboundPolicy } from "@cva/platform";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBrowserPool, createTagScanner, type BrowserPool, type TagScanner } from "../src/index.ts";
import { PIXEL_GIF, tagJob } from "./helpers.ts";

let pool: BrowserPool;
let scanner: TagScanner;
let server: Server;
let origin = "";
let tmp = "";

beforeAll(async () => {
  tmp = mkdtempSync(path.join(tmpdir(), "tagscan-tls-"));
  execFileSync("openssl", [
    "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", path.join(tmp, "key.pem"), "-out", path.join(tmp, "cert.pem"),
    "-days", "2", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
  ], { stdio: "ignore" });
  server = createServer({ key: readFileSync(path.join(tmp, "key.pem")), cert: readFileSync(path.join(tmp, "cert.pem")) }, (req, res) => {
    if (req.url?.startsWith("/p.gif")) {
      res.writeHead(200, { "content-type": "image/gif" });
      return res.end(PIXEL_GIF);
    }
    res.writeHead(200, { "content-type": "text/javascript" });
    res.end("window.ok = 1;");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  pool = createBrowserPool({ browsers: 1, slots: 1, extraArgs: ["--ignore-certificate-errors"] });
  scanner = createTagScanner({
    pool, artifacts: createMemoryArtifactSink(), location: "usa",
    policy: createOutboundPolicy(["127.0.0.0/8", "::1/128"]),
    timeouts: { renderMs: 10_000, holdMs: 800 },
  });
});
afterAll(async () => {
  await pool?.close();
  server?.closeAllConnections();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe("https requests", () => {
  it("reports ssl and the certificate's protocol and validity", async () => {
    const r = await scanner.scan(tagJob(`<div style="width:300px;height:250px;background:#123"></div><script src="${origin}/s.js"></script><img src="${origin}/p.gif">`));
    const s = r.network!.responses.find((x) => x.url === `${origin}/s.js`)!;
    expect(s).toMatchObject({ ssl: true, status: 200, serverIp: "127.0.0.1" });
    expect(s.sslInfo?.protocol).toMatch(/^TLS 1\.[23]$/);
    const now = Date.now() / 1000;
    expect(Number(s.sslInfo!.validFrom)).toBeLessThanOrEqual(now + 60);
    expect(Number(s.sslInfo!.validTo)).toBeGreaterThan(now);
    expect(r.ssl).toMatchObject({ compliant: true, insecureUrls: [] });
    expect(r.network?.measurementPixels).toBe(1);
  });
});
