import { create } from "@bufbuild/protobuf";
import { MediaProbeSchema, ScanJobSchema, ScanKind, type MediaInput, type MediaProbe, type ScanJob } from "@cva/contracts";
import { createOutboundPolicy, OutboundError, safeFetch, silentLogger } from "@cva/platform";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createVastAnalyzer } from "../src/index.ts";
import type { VastLimits } from "../src/limits.ts";
import type { ProbeFn } from "../src/media.ts";
import { chargeForFailure, createScanBudget, scanDeadline, ScanOutOfTimeError } from "../src/scan-budget.ts";
import { inlineVast, startFixtureServer, vastJob, wrapperVast, type FixtureServer } from "./fixtures.ts";

// Hostile VAST against the scan's budgets: media that add up past the byte budget, one file listed again and again,
// a wrapper chain too slow for the job's deadline, media probes that use all the time they are given. Each scan still
// ends in a report, in time, saying what was not measured and why.

const policy = createOutboundPolicy(["127.0.0.0/8", "::1/128"]);
const FILE_BYTES = 100_000;

let srv: FixtureServer;
beforeAll(async () => {
  srv = await startFixtureServer();
  for (const name of ["a", "b", "c", "d", "e"]) {
    srv.route(`/media/${name}.mp4`, (_req, res) => res.writeHead(200, { "content-type": "video/mp4" }).end(Buffer.alloc(FILE_BYTES, 7)));
  }
  srv.route("/pixel", (_req, res) => res.writeHead(200, { "content-type": "image/gif" }).end("GIF89a"));
});
afterAll(async () => {
  await srv.close();
});

/**
 * A probe that keeps the prober's contract (media-prober's own tests prove the prober does): it downloads at most
 * input.max_bytes, says so when the cap cut the file, and reports what it received.
 */
function downloadingProbe() {
  const calls: Array<{ url: string; maxBytes: number; timeoutMs?: number }> = [];
  let received = 0;
  const probe: ProbeFn = async (input: MediaInput, _job: ScanJob, opts) => {
    calls.push({ url: input.url, maxBytes: Number(input.maxBytes), timeoutMs: opts?.timeoutMs });
    try {
      const res = await safeFetch(input.url, { policy, maxBytes: Number(input.maxBytes), timeoutMs: 10_000 });
      received += res.body.length;
      return create(MediaProbeSchema, { url: input.url, httpCode: res.status, fileSize: BigInt(res.body.length), receivedBytes: BigInt(res.body.length) });
    } catch (e) {
      if (!(e instanceof OutboundError) || e.code !== "too_large") throw e;
      received += Number(input.maxBytes);
      return create(MediaProbeSchema, {
        url: input.url, error: `media download stopped at ${input.maxBytes} bytes: the scan's byte budget was reached`,
        receivedBytes: input.maxBytes, notMeasured: ["file_size", "download_speed"],
      });
    }
  };
  return { probe, calls, received: () => received };
}

const analyzer = (probe: ProbeFn, limits: Partial<VastLimits>) =>
  createVastAnalyzer({ policy, probe, location: "usa", logger: silentLogger(), limits });

const withDeadline = (url: string, jobId: string, inMs: number): ScanJob =>
  create(ScanJobSchema, { ...vastJob(url, jobId), deadlineUnixMs: BigInt(Date.now() + inMs) });

describe("the scan's byte budget", () => {
  it("media past the budget are cut or not probed, saying the byte budget was reached; nothing beyond it is fetched", async () => {
    const media = ["a", "b", "c", "d"].map((n) => srv.url(`/media/${n}.mp4`));
    const xml = inlineVast({ media });
    srv.xml("/budget.xml", xml);
    const docBytes = Buffer.byteLength(xml);
    // The document, two whole files and half of a third.
    const maxScanBytes = docBytes + 2 * FILE_BYTES + FILE_BYTES / 2;
    const p = downloadingProbe();
    const report = await analyzer(p.probe, { maxScanBytes, mediaFileMaxBytes: 150_000, probeConcurrency: 3 })
      .analyze(vastJob(srv.url("/budget.xml"), "job-budget-1"));
    const probes = report.creatives[0]!.mediafiles.map((m) => m.probe!);
    expect(report.type).toBe("inline");
    // Two files measured whole, in full.
    expect(probes.filter((x) => x.httpCode === 200 && Number(x.fileSize) === FILE_BYTES)).toHaveLength(2);
    // The third got what was left and was stopped there; the fourth was never requested.
    expect(probes.map((x) => x.error).filter((e) => e !== "").sort()).toEqual([
      "media download stopped at 50000 bytes: the scan's byte budget was reached",
      `not probed: the scan's byte budget of ${maxScanBytes} bytes was reached`,
    ]);
    const notProbed = probes.find((x) => x.error.startsWith("not probed"))!;
    expect(notProbed.notProbed).toBe(true);
    expect(notProbed.notMeasured).toEqual(expect.arrayContaining(["http_code", "file_size", "download_speed", "file_info"]));
    expect(p.calls).toHaveLength(3);
    // Every byte of media the scan received fits the budget left after the document.
    expect(p.received()).toBe(maxScanBytes - docBytes);
    // Each file still reported as declared.
    expect(probes.map((x) => x.url)).toEqual(media);
  });

  it("the same media URL listed by several MediaFiles and ads is probed once, its result reused for each", async () => {
    const a = srv.url("/media/a.mp4");
    const b = srv.url("/media/b.mp4");
    const ad = (id: string, seq: number) =>
      inlineVast({ media: [a, b, a] }).replace(/^[\s\S]*?<Ad id="ad-1">/, `<Ad id="${id}" sequence="${seq}">`).replace(/<\/VAST>\s*$/, "");
    const pod = `<?xml version="1.0"?>\n<VAST version="3.0">${ad("p1", 1)}${ad("p2", 2)}</VAST>`;
    srv.xml("/dup-pod.xml", pod);
    const p = downloadingProbe();
    const report = await analyzer(p.probe, {}).analyze(vastJob(srv.url("/dup-pod.xml"), "job-budget-2"));
    expect(report.ads).toHaveLength(2);
    const files = report.creatives.flatMap((c) => c.mediafiles.map((m) => m.probe!));
    expect(files).toHaveLength(6);
    expect(p.calls.map((c) => c.url).sort()).toEqual([a, b]);
    for (const f of files) {
      expect(f.httpCode).toBe(200);
      expect(Number(f.fileSize)).toBe(FILE_BYTES);
    }
    expect(files.map((f) => f.url)).toEqual([a, b, a, a, b, a]);
    // Counted once: two files of the 600 MB default, not six.
    expect(p.received()).toBe(2 * FILE_BYTES);
  });

  it("a failed download is charged nothing only when no body could have arrived", () => {
    expect(chargeForFailure(new OutboundError("dns", "could not resolve host x (ENOTFOUND)"), 500)).toBe(0);
    expect(chargeForFailure(new OutboundError("connection", "could not connect to x:80 (ECONNREFUSED)"), 500)).toBe(0);
    expect(chargeForFailure(new OutboundError("connection", "socket hang up"), 500)).toBe(500);
    expect(chargeForFailure(new OutboundError("timeout", "request to x timed out"), 500)).toBe(500);
    expect(chargeForFailure(new OutboundError("too_large", "too large"), 500)).toBe(500);
  });

  it("the scan's deadline is the job's less the report reserve, or the fallback from now", () => {
    const job = create(ScanJobSchema, { jobId: "j", deadlineUnixMs: 10_000n });
    expect(scanDeadline(job, { reserveMs: 2_000, fallbackMs: 90_000 }, 1_000)).toBe(8_000);
    expect(scanDeadline(create(ScanJobSchema, { jobId: "j" }), { reserveMs: 2_000, fallbackMs: 90_000 }, 1_000)).toBe(91_000);
  });

  it("reservations wait for downloads in flight instead of cutting a file that fits", async () => {
    const budget = createScanBudget({ deadlineMs: Date.now() + 10_000, totalBytes: 250 });
    const first = await budget.reserve(150);
    expect(first.bytes).toBe(150);
    let second: number | undefined;
    const pending = budget.reserve(150).then((g) => (second = g.bytes));
    await Promise.resolve();
    expect(second).toBeUndefined();
    first.settle(100);
    await pending;
    expect(second).toBe(150);
    expect(budget.bytesFree()).toBe(0);
  });
});

describe("the scan's deadline", () => {
  it("impression pixels answer to the deadline: a tracker that never answers does not hold the report past it", async () => {
    srv.route("/hang-pixel", (_req, res) => {
      const t = setTimeout(() => res.end(), 60_000);
      res.on("close", () => clearTimeout(t));
    });
    const pixels = [1, 2, 3].map((i) => srv.url(`/hang-pixel?i=${i}`));
    srv.xml("/hang-pixels.xml", inlineVast({ media: [], impressions: pixels }));
    const job = withDeadline(srv.url("/hang-pixels.xml"), "job-deadline-pixels", 4_000);
    const started = Date.now();
    // The pixel's own time-out (30 s) is far beyond the job's: the deadline must be what stops it.
    const report = await analyzer(downloadingProbe().probe, { reportReserveMs: 1_000, pixelTimeoutMs: 30_000 }).analyze(job);
    expect(Date.now() - started).toBeLessThan(4_000);
    expect(report.errors.filter((e) => e.startsWith("impression pixel"))).toHaveLength(3);
  });

  it("a wrapper chain too slow for the job's deadline ends in a report in time, the last hop saying why", async () => {
    // Five wrappers, each answering after 1.2 s: the whole chain would take 7 s; the job has 4 s.
    const hops = 5;
    for (let i = 0; i < hops; i++) {
      const body = i < hops - 1 ? wrapperVast(srv.url(`/slow-${i + 1}.xml`)) : inlineVast({ media: [srv.url("/media/a.mp4")] });
      srv.route(`/slow-${i}.xml`, (_req, res) => {
        const t = setTimeout(() => res.writeHead(200, { "content-type": "application/xml" }).end(body), 1_200);
        res.on("close", () => clearTimeout(t));
      });
    }
    const p = downloadingProbe();
    const started = Date.now();
    const job = withDeadline(srv.url("/slow-0.xml"), "job-deadline-1", 4_000);
    const report = await analyzer(p.probe, { reportReserveMs: 500, pixelTimeoutMs: 500 }).analyze(job);
    const elapsed = Date.now() - started;
    expect(elapsed).toBeLessThan(4_000);
    expect(report.type).toBe("wrapper");
    const last = report.wrapperChain.at(-1)!;
    expect(last.error).toMatch(/^wrapper target \d .* (stopped|not fetched): the scan's deadline was reached$/);
    expect(report.wrapperChain.length).toBeLessThan(hops);
    expect(report.errors).toContain(last.error);
    expect(p.calls).toHaveLength(0);
  });

  it("probes get only what the deadline leaves; files it leaves no time for are not probed, saying so", async () => {
    srv.xml("/deadline-media.xml", inlineVast({ media: ["a", "b", "c"].map((n) => srv.url(`/media/${n}.mp4`)) }));
    const given: number[] = [];
    // A media worker that uses all the time it is given (as a prober cut by its job deadline does), then answers.
    const probe: ProbeFn = (input, _job, opts) => {
      given.push(opts?.timeoutMs ?? Number.POSITIVE_INFINITY);
      return new Promise<MediaProbe>((resolve) => setTimeout(() => resolve(create(MediaProbeSchema, {
        url: input.url, httpCode: 200, analysisError: "media analysis stopped: the scan's deadline was reached",
      })), Math.min(opts?.timeoutMs ?? 0, 30_000)));
    };
    const started = Date.now();
    const job = withDeadline(srv.url("/deadline-media.xml"), "job-deadline-2", 4_000);
    const report = await analyzer(probe, { reportReserveMs: 1_000, probeConcurrency: 1, minProbeMs: 1_000 }).analyze(job);
    expect(Date.now() - started).toBeLessThan(4_000);
    expect(given).toHaveLength(1);
    // What was left of 3 s after the document: never more.
    expect(given[0]).toBeLessThanOrEqual(3_000);
    const probes = report.creatives[0]!.mediafiles.map((m) => m.probe!);
    expect(probes[0]!.analysisError).toBe("media analysis stopped: the scan's deadline was reached");
    for (const later of probes.slice(1)) {
      expect(later.error).toBe("not probed: the scan's deadline was reached");
      expect(later.notProbed).toBe(true);
    }
  });

  it("a job whose deadline leaves no time for the VAST URL itself fails as a scan, not as the client's input", async () => {
    srv.xml("/late.xml", inlineVast({}));
    const job = withDeadline(srv.url("/late.xml"), "job-deadline-3", 100);
    await expect(analyzer(downloadingProbe().probe, { reportReserveMs: 500 }).analyze(job)).rejects.toBeInstanceOf(ScanOutOfTimeError);
  });

  it("a job without a deadline (a direct call) gets the fallback scan time, and a report as before", async () => {
    srv.xml("/plain.xml", inlineVast({ media: [srv.url("/media/e.mp4")] }));
    const report = await analyzer(downloadingProbe().probe, {}).analyze(
      create(ScanJobSchema, { jobId: "job-plain", kind: ScanKind.VAST, input: { case: "vast", value: { url: srv.url("/plain.xml") } } }),
    );
    expect(report.creatives[0]!.mediafiles[0]!.probe!.httpCode).toBe(200);
    expect(report.errors).toEqual([]);
  });
});
