import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, type Client } from "@connectrpc/connect";
import {
  auth,
  CreativeType,
  ErrorType,
  Measurement_Confidence,
  ScanJobResultSchema,
  ScanKind,
  TagReportSchema,
  TestOutcome,
  VastReportSchema,
  ZipReportSchema,
  reportstore,
  type ScanJob,
  type ScanJobResult,
  type TagReport,
  type VastReport,
  type WorkerHeartbeat,
  type ZipReport,
} from "@cva/contracts";
import pino from "pino";
import { afterEach } from "vitest";
import { buildEdgeApp } from "../src/app.ts";
import type { Dispatcher, EdgeConfig, EdgeDeps } from "../src/ports.ts";
import { DEFAULT_LIMITS } from "../src/ports.ts";

// In-memory fakes of auth, report-store and dispatcher with the behaviour the edge relies on (codes, ownership,
// ordering); the real services are tested by their owners and end-to-end by the lead.

export class FakeAuth {
  keys = new Map<string, { customerId: string; revoked?: boolean }>([
    ["key-a", { customerId: "cust-a" }],
    ["key-b", { customerId: "cust-b" }],
    ["key-revoked", { customerId: "cust-a", revoked: true }],
  ]);
  quota = new Map<string, number>([["cust-a", 1000], ["cust-b", 1000]]);
  reservations = new Map<string, string>();
  refunds: string[] = [];
  commits: string[] = [];
  reserveRequests: auth.ReserveQuotaRequest[] = [];
  /** When set, ReserveQuota answers this error (after recording the request). */
  reserveError: ConnectError | undefined;
  calls: string[] = [];
  hang = false;
  /** ReserveQuota calls that reserve but whose answer is lost: the caller's time-out ends them (a slow auth). */
  lostReserveAnswers = 0;
  /** CommitQuota calls that fail (Unavailable, nothing committed) before the next ones answer. */
  commitFailures = 0;
  /** RefundQuota calls that fail (Unavailable, nothing refunded) before the next ones answer. */
  refundFailures = 0;
  /** CommitQuota calls that find their reservation refunded by the reaper first (past its TTL): committed false. */
  expiredBeforeCommit = 0;
  private n = 0;

  client(): Client<typeof auth.AuthService> {
    const self = this;
    const hangable = <T>(fn: () => T, opts?: { timeoutMs?: number; signal?: AbortSignal }): Promise<T> => {
      if (!self.hang) return Promise.resolve().then(fn);
      // A hung dependency: only the caller's time-out ends the call, as with a real Connect client.
      return new Promise((_, reject) => {
        setTimeout(() => reject(new ConnectError("deadline exceeded", Code.DeadlineExceeded)), opts?.timeoutMs ?? 60_000);
      });
    };
    return {
      authenticate(req: { apiKey: string }, opts?: { timeoutMs?: number }) {
        self.calls.push("authenticate");
        return hangable(() => {
          const k = self.keys.get(req.apiKey);
          if (!k || k.revoked) throw new ConnectError("unknown key", Code.Unauthenticated);
          return create(auth.AuthenticateResponseSchema, { customerId: k.customerId, keyId: `kid-${req.apiKey}` });
        }, opts);
      },
      reserveQuota(req: auth.ReserveQuotaRequest, opts?: { timeoutMs?: number }) {
        self.calls.push("reserveQuota");
        self.reserveRequests.push(req);
        const reserve = () => {
          if (self.reserveError) throw self.reserveError;
          const left = self.quota.get(req.customerId) ?? 0;
          // As auth: a proposed id already reserved answers that reservation, charging nothing more.
          if (req.reservationId && self.reservations.has(req.reservationId)) {
            return create(auth.ReserveQuotaResponseSchema, { reservationId: req.reservationId, remaining: BigInt(left) });
          }
          if (left <= 0) throw new ConnectError("quota used up", Code.ResourceExhausted);
          self.quota.set(req.customerId, left - 1);
          const id = req.reservationId || `res-${++self.n}`;
          self.reservations.set(id, req.customerId);
          return create(auth.ReserveQuotaResponseSchema, { reservationId: id, remaining: BigInt(left - 1) });
        };
        if (self.lostReserveAnswers > 0) {
          self.lostReserveAnswers--;
          reserve();
          return new Promise((_, reject) => setTimeout(() => reject(new ConnectError("deadline exceeded", Code.DeadlineExceeded)), opts?.timeoutMs ?? 60_000));
        }
        return hangable(reserve, opts);
      },
      refundQuota(req: { reservationId: string }) {
        self.calls.push("refundQuota");
        if (self.refundFailures > 0) {
          self.refundFailures--;
          return Promise.reject(new ConnectError("auth store unavailable", Code.Unavailable));
        }
        self.refunds.push(req.reservationId);
        const c = self.reservations.get(req.reservationId);
        if (c) self.quota.set(c, (self.quota.get(c) ?? 0) + 1);
        return Promise.resolve(create(auth.RefundQuotaResponseSchema, { refunded: c !== undefined }));
      },
      commitQuota(req: { reservationId: string }) {
        self.calls.push("commitQuota");
        if (self.commitFailures > 0) {
          self.commitFailures--;
          return Promise.reject(new ConnectError("auth store unavailable", Code.Unavailable));
        }
        if (self.expiredBeforeCommit > 0 && self.reservations.has(req.reservationId)) {
          self.expiredBeforeCommit--;
          const c = self.reservations.get(req.reservationId)!;
          self.reservations.delete(req.reservationId);
          self.quota.set(c, (self.quota.get(c) ?? 0) + 1);
          return Promise.resolve(create(auth.CommitQuotaResponseSchema, { committed: false }));
        }
        self.commits.push(req.reservationId);
        return Promise.resolve(create(auth.CommitQuotaResponseSchema, { committed: self.reservations.has(req.reservationId) }));
      },
    } as unknown as Client<typeof auth.AuthService>;
  }
}

export class FakeReportStore {
  reports: reportstore.StoredReport[] = [];
  artifacts = new Map<string, { data: Uint8Array; mimeType: string }>();
  /** Workspace settings by `<customer> <workspace>`. */
  workspaces = new Map<string, { allowedDomains: string[]; updatedUnixMs: bigint }>();
  /** When set, the workspace settings calls fail as an unreachable store does. */
  workspacesDown = false;
  /** When set, putReport never answers (only the caller's time-out ends it). */
  hangPut = false;
  /** The next this many putReport calls answer UNAVAILABLE, as a store whose NATS node died does for a moment. */
  unavailablePuts = 0;
  putCalls = 0;

  client(): Client<typeof reportstore.ReportStoreService> {
    const self = this;
    return {
      async putReport(req: { report: reportstore.StoredReport }, opts?: { timeoutMs?: number }) {
        self.putCalls++;
        if (self.unavailablePuts > 0) {
          self.unavailablePuts--;
          throw new ConnectError("report store unavailable", Code.Unavailable);
        }
        if (self.hangPut) {
          await new Promise((r) => setTimeout(r, opts?.timeoutMs ?? 60_000));
          throw new ConnectError("deadline exceeded", Code.DeadlineExceeded);
        }
        self.reports.push(create(reportstore.StoredReportSchema, req.report));
        return create(reportstore.PutReportResponseSchema);
      },
      async getReport(req: { jobId: string; customerId: string }) {
        const r = self.reports.find((x) => x.jobId === req.jobId && x.customerId === req.customerId);
        if (!r) throw new ConnectError("not found", Code.NotFound);
        return create(reportstore.GetReportResponseSchema, { report: r });
      },
      async getReportByPageToken(req: { pageToken: string }) {
        const r = self.reports.find((x) => x.pageToken === req.pageToken);
        if (!r) throw new ConnectError("not found", Code.NotFound);
        return create(reportstore.GetReportByPageTokenResponseSchema, { report: r });
      },
      async listWorkspaceReports(req: { customerId: string; workspaceId: bigint; pageSize: number; pageToken: string }) {
        const all = self.reports
          .filter((x) => x.customerId === req.customerId && x.workspaceId === req.workspaceId)
          .sort((a, b) => Number(b.createdUnixMs - a.createdUnixMs) || (a.jobId < b.jobId ? 1 : -1));
        const start = req.pageToken ? Number(req.pageToken) : 0;
        const page = all.slice(start, start + req.pageSize);
        const next = start + req.pageSize < all.length ? String(start + req.pageSize) : "";
        return create(reportstore.ListWorkspaceReportsResponseSchema, {
          reports: page.map((r) => ({ jobId: r.jobId, reportKind: r.reportKind, name: r.name, createdUnixMs: r.createdUnixMs })),
          nextPageToken: next,
        });
      },
      async putWorkspaceSettings(req: { settings: { customerId: string; workspaceId: bigint; allowedDomains: string[] } }) {
        if (self.workspacesDown) throw new ConnectError("unavailable", Code.Unavailable);
        const { customerId, workspaceId, allowedDomains } = req.settings;
        const s = { allowedDomains: [...allowedDomains], updatedUnixMs: 1_700_000_000_000n };
        self.workspaces.set(`${customerId} ${workspaceId}`, s);
        return create(reportstore.PutWorkspaceSettingsResponseSchema, { settings: { customerId, workspaceId, ...s } });
      },
      async getWorkspaceSettings(req: { customerId: string; workspaceId: bigint }) {
        if (self.workspacesDown) throw new ConnectError("unavailable", Code.Unavailable);
        const s = self.workspaces.get(`${req.customerId} ${req.workspaceId}`);
        return create(reportstore.GetWorkspaceSettingsResponseSchema, { settings: { customerId: req.customerId, workspaceId: req.workspaceId, ...s } });
      },
      async getArtifact(req: { id: string }) {
        const a = self.artifacts.get(req.id);
        if (!a) throw new ConnectError("not found", Code.NotFound);
        return create(reportstore.GetArtifactResponseSchema, { data: a.data, mimeType: a.mimeType });
      },
    } as unknown as Client<typeof reportstore.ReportStoreService>;
  }
}

export class NoWorkerError extends Error {
  constructor(message = "no worker") {
    super(message);
    this.name = "NoWorkerError";
  }
}

export type Behaviour = "ok" | "no-worker" | "payload" | "processing" | "timeout";

export class FakeDispatcher implements Dispatcher {
  behaviour: Behaviour = "ok";
  jobs: ScanJob[] = [];
  workers: Partial<Record<ScanKind, number>> = {
    [ScanKind.TAG]: 1, [ScanKind.ZIP]: 1, [ScanKind.VAST]: 1, [ScanKind.MEDIA]: 1,
    [ScanKind.VIDEO_FILE]: 1, [ScanKind.IMAGE_FILE]: 1, [ScanKind.AUDIO_FILE]: 1,
  };
  /** Changes each report before the fake worker answers with it: a test's own measurements. */
  editReport?: (report: TagReport | ZipReport | VastReport) => void;

  async submit(job: ScanJob): Promise<ScanJobResult> {
    this.jobs.push(job);
    switch (this.behaviour) {
      case "no-worker":
        throw new NoWorkerError();
      case "timeout":
        throw new Error("timed out after 100 ms");
      case "payload":
        return create(ScanJobResultSchema, { jobId: job.jobId, outcome: { case: "error", value: { type: ErrorType.PAYLOAD, message: "data: the zip has no index.html" } } });
      case "processing":
        return create(ScanJobResultSchema, { jobId: job.jobId, outcome: { case: "error", value: { type: ErrorType.PROCESSING, message: "browser crashed at /tmp/x" } } });
    }
    const outcome =
      job.kind === ScanKind.ZIP
        ? ({ case: "zip", value: fullZipReport() } as const)
        : job.kind === ScanKind.VAST
          ? ({ case: "vast", value: fullVastReport() } as const)
          : ({ case: "tag", value: fullTagReport() } as const);
    this.editReport?.(outcome.value);
    return create(ScanJobResultSchema, { jobId: job.jobId, workerId: "w1", outcome });
  }

  liveWorkers(kind: ScanKind): WorkerHeartbeat[] {
    return Array.from({ length: this.workers[kind] ?? 0 }, () => ({}) as WorkerHeartbeat);
  }
}

const image = (id: string, mime = "image/png", bytes = 4) => ({ id, bytes: BigInt(bytes), mimeType: mime, color: "#ff0000" });

export function fullTagReport(): TagReport {
  return create(TagReportSchema, {
    thirdPartyAdServer: "Google Campaign Manager",
    animationDurationMs: 1500n,
    heavyAd: { checked: true, intervened: false, reason: "", watchedMs: 1200, detail: "the first run loaded 2.5 MB (Chrome's limit: 4 MB); Chrome did not intervene in 1.2 s" },
    blockedByAdblock: true,
    console: { errors: ["Uncaught <script>alert(1)</script>"], warnings: ["w1"] },
    cookies: [
      { domain: ".example.com", expires: 1767225600.5, httpOnly: true, name: "id", path: "/", priority: "Medium", sameSite: "None", secure: true, session: false, size: 10, value: "abc" },
      { domain: "example.com", expires: -1, httpOnly: false, name: "s", path: "/", priority: "Medium", secure: false, session: true, size: 2, value: "x" },
    ],
    cpuUsageMs: 123n,
    creativeRendered: true,
    dialogs: [{ type: "alert", message: "hi" }],
    dimensions: { width: 300, height: 250 },
    domContentLoadedMs: 45n,
    hasBorder: true,
    hasVideo: false,
    iframes: 2,
    landingPage: { screenshot: image("lp1"), tab: "new_tab", title: "Landing", url: "https://example.com/lp", working: true },
    localStorage: [{ key: "k", value: "v" }],
    memoryUsageBytes: 1048576n,
    meta: {
      apiVersion: "v3", cpu: "2 cores", creativeType: CreativeType.AD_TAG, device: "Desktop", language: "en-US", ram: "4 GB",
      scanDurationSeconds: 2.4123, serverLocation: "usa", timestamp: 1763726400n, ua: "Mozilla/5.0",
    },
    missingAssets: [{ url: "https://cdn.example.com/x.png", status: 404, resourceType: "image", reason: "HTTP 404" }],
    mobileFriendly: true,
    network: {
      loadSize: { hostInitiatedSubload: 100n, initialLoad: 2000n, total: 2100n },
      measurementPixels: 1,
      responses: [
        {
          bytes: 2000n, headers: { "Content-Type": "text/html" }, isPixel: false, method: "GET", resourceType: "document",
          serverIp: "93.184.216.34", ssl: true, sslInfo: { protocol: "TLS 1.3", validFrom: 1700000000n, validTo: 1800000000n },
          status: 200, statusText: "OK", timingMs: 35n, url: "https://example.com/ad.js", startedMs: 5n,
        },
        { bytes: 43n, headers: {}, isPixel: true, method: "GET", resourceType: "image", serverIp: "1.2.3.4", ssl: false, status: 200, statusText: "OK", timingMs: 12n, url: "http://pixel.example/p.gif", vendor: { name: "Pixel Co", category: "measurement", gvlId: 77 } },
      ],
    },
    jobId: "worker-job",
    name: "",
    scanResults: {
      passed: 1,
      failed: 1,
      tests: [
        { test: "initial_load_size", name: "Initial load size", dataType: "int", unit: "KB", expected: { case: "expectedNumber", value: 150 }, expectedText: "< 150 KB", actual: 2, operator: "<", result: TestOutcome.PASSED },
        { test: "dimensions_width", name: "Width", dataType: "int", unit: "px", expected: { case: "expectedString", value: "1#300" }, expectedText: "between 1 and 300", actual: 301, operator: "><", result: TestOutcome.FAILED, message: "Width: 301 px, but expected between 1 and 300" },
        { test: "cpu", name: "CPU", dataType: "int", unit: "ms", expectedText: "", actual: 0, operator: "<", result: TestOutcome.ERROR, message: "no data" },
      ],
      specId: 0,
    },
    screenshot: { highres: image("shot1"), thumbnail: image("thumb1", "image/jpeg", 3) },
    ssl: { compliant: false, insecureUrls: ["http://pixel.example/p.gif"] },
    timeToVisualStartMs: 250n,
    usesDocumentWrite: true,
    visualArtifacts: true,
    declaredDimensions: { width: 300, height: 250 },
    measurement: {
      confidence: Measurement_Confidence.LOW,
      reasons: ["the renderer was kept from the CPU for 1.4 s while the creative rendered"],
      lowConfidenceFields: ["animation_duration"],
    },
    privacy: {
      states: [
        { state: "no_cmp", cookies: [{ name: "uid", domain: "example.com" }], storageKeys: ["k"], thirdPartyDomains: ["pixel.example"], requests: 2, pixels: 1, watchedMs: 1500n },
        { state: "tcf_denied", cookies: [{ name: "uid", domain: "example.com" }], storageKeys: [], thirdPartyDomains: ["pixel.example"], requests: 2, pixels: 1, signal: "TCF v2.2 TC string CQ…", watchedMs: 1600n, renderedBecause: "the creative looked for __tcfapi" },
        { state: "gpp_us_opt_out", cookies: [{ name: "uid", domain: "example.com" }], storageKeys: ["k"], thirdPartyDomains: ["pixel.example"], requests: 2, pixels: 1, signal: "GPP …", watchedMs: 1500n, derivedFrom: "no_cmp", derivedReason: "not rendered: the creative looked for none of this state's consent signals" },
      ],
      consentSignals: ["__tcfapi"],
      readsConsent: true,
      consentCalls: [{ state: "tcf_denied", api: "__tcfapi", command: "addEventListener", count: 1, viaPostMessage: false }],
      consentMacros: [{ macro: "${GDPR_CONSENT_755}", host: "pixel.example", foundIn: "markup", filled: true, vendorId: 755, hostVendor: { name: "Pixel Co", category: "measurement", gvlId: 77 }, vendorMatches: false }],
      violations: [{ state: "tcf_denied", kind: "cookie", what: "uid", domain: "example.com" }],
      allowedDomains: ["example.com"],
      unapprovedDomains: ["pixel.example"],
    },
  });
}

export function fullZipReport(): ZipReport {
  return create(ZipReportSchema, {
    render: fullTagReport(),
    clickTagFound: true,
    fileStructure: [{ name: "index.html", bytes: 1200n, type: "html" }, { name: "img/a.png", bytes: 5000n, type: "image" }],
    hasExternalAssets: false,
    html5Library: "GSAP",
    metaAdSize: true,
    minified: false,
    entryPoint: "index.html",
    hasBackupAd: true,
    backupAd: "backup.jpg",
    clickTagUsed: true,
    externalAssets: ["https://fonts.googleapis.com/css?family=Roboto"],
    zipSize: 4100n,
    unzippedSize: 6200n,
    images: [
      { name: "img/a.png", bytes: 5000n, reencodedBytes: 3000n, width: 300, height: 250 },
      { name: "img/huge.jpg", bytes: 9000n, width: 5000, height: 5000, error: "not checked: larger than 4000000 pixels" },
    ],
  });
}

export function fullVastReport(): VastReport {
  return create(VastReportSchema, {
    adSystem: "GDFP",
    adTitle: "Spring",
    cors: true,
    creatives: [
      {
        clickThroughUrl: "https://example.com/click",
        duration: "00:00:15",
        skipOffset: 5,
        mediafiles: [
          {
            attributes: { bitrate: 2000, delivery: "progressive", height: 720, maintainaspectratio: "true", scalable: "true", type: "video/mp4", width: 1280, codec: "avc1" },
            probe: {
              url: "https://cdn.example.com/v.mp4", httpCode: 200, fileSize: 5_000_000n, downloadSpeed: 12.5,
              fileInfo: {
                container: { format: "mov,mp4", mimeType: "video/mp4", moovAtomPosition: "beginning" },
                video: { aspectRatio: "16:9", bitDepth: 8, bitRate: 1_900_000n, codec: "h264", definition: "HD", dimensions: "1280x720", duration: 15, frameRate: 25, height: 720, letterboxing: false, width: 1280 },
                audio: { bitRate: 128000n, codec: "aac", loudness: { lufs: -23.1, lra: 4.2 }, sampleRate: 48000, channels: 2 },
              },
              poster: image("poster1", "image/jpeg"), filmStrip: image("film1", "image/jpeg"), audioWave: image("wave1"),
            },
          },
        ],
      },
      { clickThroughUrl: "", duration: "00:00:30", mediafiles: [] },
    ],
    errors: ["creative 1 (Linear) has no MediaFile: a player has nothing to play"],
    jobId: "w",
    meta: { apiVersion: "v3", creativeType: CreativeType.VAST, timestamp: 1763726400n, scanDurationSeconds: 3 },
    impressionPixels: ["https://px.example/imp"],
    scanResults: {
      passed: 2, failed: 0,
      tests: [
        { test: "vast_version", group: "xml", name: "VAST version", dataType: "string", expected: { case: "expectedString", value: "2.0#4.1" }, actual: 0, operator: "><", result: TestOutcome.PASSED },
        { test: "bitrate", group: "creative_0_mediafile_0", name: "Bitrate", dataType: "int", unit: "kbps", expected: { case: "expectedNumber", value: 3000 }, actual: 1900, operator: "<", result: TestOutcome.PASSED },
        { test: "loudness", group: "creative_0_mediafile_0", name: "Loudness", dataType: "float", unit: "LUFS", expected: { case: "expectedString", value: "-26#-22" }, expectedText: "between -26 and -22 LUFS", actual: 0, operator: "><", result: TestOutcome.ERROR, message: "test could not be evaluated: the loudness was not measured: media analysis timed out after 60 s" },
      ],
    },
    screenshot: { highres: image("vshot", "image/jpeg"), thumbnail: image("vthumb", "image/jpeg") },
    ssl: { compliant: false, insecureUrls: ["http://x.example/a.mp4"] },
    type: "inline",
    vastUrl: "https://ads.example.com/vast.xml",
    vastVersion: "4.1",
    wrapperRedirects: 1,
    xml: { contentType: "application/xml", data: new TextEncoder().encode("<VAST/>"), fileSize: 7n, httpCode: 200, loadTimeMs: 80n },
  });
}

export const TEST_BASE = "https://edge.test";

export function testConfig(over: Partial<EdgeConfig> = {}): EdgeConfig {
  return { publicBaseUrl: TEST_BASE, serverLocation: "usa", limits: { ...DEFAULT_LIMITS }, scanTimeoutMs: 5_000, rpcTimeoutMs: 200, ...over };
}

export async function makeApp(over: Partial<EdgeDeps> = {}) {
  const authFake = new FakeAuth();
  const store = new FakeReportStore();
  const dispatcher = new FakeDispatcher();
  const deps: EdgeDeps = {
    auth: authFake.client(),
    reports: store.client(),
    dispatcher,
    config: testConfig(),
    logger: pino({ level: "silent" }),
    isKnownSpecId: (id) => id === 0 || id === 7,
    ...over,
  };
  const app = await buildEdgeApp(deps);
  return { app, authFake, store, dispatcher, deps };
}

export const b64 = (s: string | Uint8Array) => Buffer.from(s).toString("base64");
export const TAG = b64("<div>ad</div>");
export const ZIP = b64(Buffer.from([0x50, 0x4b, 0x05, 0x06, ...new Array(18).fill(0)]));
export const VAST = b64("https://ads.example.com/vast.xml");

export type TestApp = Awaited<ReturnType<typeof makeApp>>;

/**
 * `setup(...)` makes an app for the current test (closing one the test made before) and every app is closed after its
 * test. Call once at the top of a test file.
 */
export function appPerTest(): (...args: Parameters<typeof makeApp>) => Promise<TestApp> {
  let current: TestApp | undefined;
  afterEach(async () => {
    await current?.app.close();
    current = undefined;
  });
  return async (...args) => {
    await current?.app.close();
    current = await makeApp(...args);
    return current;
  };
}
