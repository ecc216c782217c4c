import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { create } from "@bufbuild/protobuf";
import { Device, ScanJobSchema, ScanKind, type ScanJob } from "@cva/contracts";
import { createMemoryArtifactSink, createOutboundPolicy } from "@cva/platform";
import { createBrowserPool, createTagScanner, type BrowserPool, type TagScanner } from "../src/index.ts";

export interface SeenRequest { method: string; url: string; headers: IncomingMessage["headers"] }

export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** A fixture web server on 127.0.0.1:<free port>; `seen` records every request it got. */
export async function startFixtureServer(routes: Record<string, Handler>) {
  const seen: SeenRequest[] = [];
  const server: Server = createServer((req, res) => {
    seen.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers });
    const path = (req.url ?? "/").split("?")[0]!;
    const h = routes[path];
    if (h) return h(req, res);
    res.writeHead(404, { "content-type": "text/plain" });
    res.end("not found");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  return {
    origin: `http://127.0.0.1:${port}`,
    seen,
    close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}

export const send = (type: string, body: string | Buffer, extra: Record<string, string> = {}): Handler => (_req, res) => {
  res.writeHead(200, { "content-type": type, "cache-control": "no-store", ...extra });
  res.end(body);
};

/** The smallest transparent 1x1 GIF. */
export const PIXEL_GIF = Buffer.from("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7", "base64");

export function tagJob(html: string, opts: { apiVersion?: string; device?: Device; language?: string; pageUrl?: string; landing?: boolean } = {}): ScanJob {
  return create(ScanJobSchema, {
    jobId: `t-${Math.random().toString(36).slice(2)}`,
    kind: ScanKind.TAG,
    apiVersion: opts.apiVersion ?? "v3",
    targeting: { device: opts.device ?? Device.DESKTOP, language: opts.language ?? "", pageUrl: opts.pageUrl ?? "" },
    input: { case: "tag", value: { creative: { case: "html", value: html }, captureLandingPage: opts.landing ?? false } },
  });
}

export function bundleJob(files: Record<string, string | Uint8Array>, entry: string): ScanJob {
  const enc = new TextEncoder();
  return create(ScanJobSchema, {
    jobId: `b-${Math.random().toString(36).slice(2)}`,
    kind: ScanKind.TAG,
    apiVersion: "v2",
    input: {
      case: "tag",
      value: {
        creative: {
          case: "bundle",
          value: { entry, files: Object.entries(files).map(([path, d]) => ({ path, data: typeof d === "string" ? enc.encode(d) : d })) },
        },
      },
    },
  });
}

/**
 * One browser with two slots and a scanner on it that may reach loopback fixture servers (test time-outs). `pool`: a
 * file in the suite-shared project passes sharedBrowserPool(2) (shared-pool.ts), the worker's browser.
 */
export function createTestScanner(renderMs = 12_000, pool: BrowserPool = createBrowserPool({ browsers: 1, slots: 2 })): { pool: BrowserPool; scanner: TagScanner } {
  const scanner = createTagScanner({
    pool, artifacts: createMemoryArtifactSink(), location: "usa", policy: createOutboundPolicy(["127.0.0.0/8"]),
    timeouts: { renderMs, stepMs: 4_000, landingMs: 6_000 },
  });
  return { pool, scanner };
}
