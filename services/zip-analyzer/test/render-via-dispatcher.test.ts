import { create } from "@bufbuild/protobuf";
import {
  BundleSchema, ErrorType, ScanErrorSchema, ScanJobResultSchema, ScanKind, TagReportSchema, type ScanJob,
} from "@cva/contracts";
import { NoWorkerError } from "@cva/platform";
import { describe, expect, it } from "vitest";
import { createZipAnalyzer } from "../src/index.ts";
import { runJob } from "../src/job.ts";
import { renderViaDispatcher, type JobSubmitter } from "../src/render-via-dispatcher.ts";
import { zipJob } from "./fixtures.ts";
import { buildZip } from "./zip-writer.ts";

const bundle = create(BundleSchema, { entry: "index.html", files: [{ path: "index.html", data: Buffer.from("<html></html>") }] });
const ZIP = buildZip([{ name: "index.html", data: "<html></html>" }]);

function submitter(answer: (job: ScanJob) => Promise<ReturnType<typeof create<typeof ScanJobResultSchema>>>) {
  const seen: Array<{ job: ScanJob; opts: { timeoutMs: number; location?: string } }> = [];
  const d: JobSubmitter = { submit: async (job, opts) => (seen.push({ job, opts }), answer(job)) };
  return { d, seen };
}

describe("renderViaDispatcher", () => {
  it("submits a tag job carrying the bundle, under its own id, at this worker's location", async () => {
    const { d, seen } = submitter(async (job) => create(ScanJobResultSchema, { jobId: job.jobId, outcome: { case: "tag", value: create(TagReportSchema, { creativeRendered: true }) } }));
    const job = zipJob(ZIP, "z1");
    job.deadlineUnixMs = BigInt(Date.now() + 30_000);
    const report = await renderViaDispatcher(d, { location: "nld" })(bundle, job);
    expect(report.creativeRendered).toBe(true);
    expect(seen[0].job).toMatchObject({ jobId: "z1-render", kind: ScanKind.TAG });
    expect(seen[0].job.input.case === "tag" && seen[0].job.input.value.creative.value).toBe(bundle);
    expect(seen[0].opts.location).toBe("nld");
    expect(seen[0].opts.timeoutMs).toBeGreaterThan(20_000);
    expect(seen[0].opts.timeoutMs).toBeLessThanOrEqual(28_000);
  });

  it("turns no worker resources and failed renders into processing errors", async () => {
    const noWorker = submitter(async () => { throw new NoWorkerError("no worker resources: no tag worker is running for location usa"); });
    const analyzer = createZipAnalyzer({ render: renderViaDispatcher(noWorker.d, { location: "usa" }) });
    expect(await runJob(analyzer, zipJob(ZIP))).toEqual({
      case: "error",
      value: expect.objectContaining({ type: ErrorType.PROCESSING, message: "no worker resources: no tag worker is running for location usa" }),
    });

    const failed = submitter(async (job) => create(ScanJobResultSchema, { jobId: job.jobId, outcome: { case: "error", value: create(ScanErrorSchema, { type: ErrorType.PROCESSING, message: "the scan could not be completed" }) } }));
    const analyzer2 = createZipAnalyzer({ render: renderViaDispatcher(failed.d, { location: "usa" }) });
    expect(await runJob(analyzer2, zipJob(ZIP))).toEqual({
      case: "error",
      value: expect.objectContaining({ type: ErrorType.PROCESSING, message: "the scan could not be completed" }),
    });
  });

  it("does not submit when the zip job's deadline has passed", async () => {
    const { d, seen } = submitter(async () => { throw new Error("not expected"); });
    const job = zipJob(ZIP);
    job.deadlineUnixMs = BigInt(Date.now() - 1);
    await expect(renderViaDispatcher(d, { location: "usa" })(bundle, job)).rejects.toThrow(/ran out of time/);
    expect(seen).toHaveLength(0);
  });

  it("lets unexpected errors through for the worker's generic processing error", async () => {
    const analyzer = createZipAnalyzer({ render: async () => { throw new TypeError("boom at /internal/path"); } });
    await expect(runJob(analyzer, zipJob(ZIP))).rejects.toThrow(TypeError);
  });
});
