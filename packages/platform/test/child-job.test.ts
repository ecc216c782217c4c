import { describe, expect, it } from "vitest";
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { ErrorType, MediaProbeSchema, ScanJobResultSchema, ScanJobSchema, ScanKind, TagReportSchema, type ScanJob } from "@cva/contracts";
import { ChildJobError, childJob, childTimeoutMs, NoWorkerError, runChildJob, type JobSubmitter } from "@cva/platform";

const parent = create(ScanJobSchema, { jobId: "p1", kind: ScanKind.VAST, apiVersion: "v3", specId: 1, targeting: { country: "nld", language: "nl" } });
const answering = (outcome: MessageInitShape<typeof ScanJobResultSchema>["outcome"]): JobSubmitter & { jobs: ScanJob[] } => {
  const jobs: ScanJob[] = [];
  return { jobs, submit: async (job) => (jobs.push(job), create(ScanJobResultSchema, { jobId: job.jobId, outcome })) };
};
const failure = async (p: Promise<unknown>) => ((await p.catch((e: unknown) => e)) as ChildJobError).failure;

describe("child jobs: submit and unwrap", () => {
  it("builds the child from its parent and returns the report it asked for", async () => {
    const job = childJob(parent, "media-1", ScanKind.MEDIA, { case: "media", value: { url: "https://m.example/a.mp4" } });
    expect([job.jobId, job.kind, job.apiVersion, job.specId, job.targeting?.country]).toEqual(["p1-media-1", ScanKind.MEDIA, "v3", 1, "nld"]);
    const s = answering({ case: "media", value: create(MediaProbeSchema, { url: "u", httpCode: 200 }) });
    const probe = await runChildJob(s, job, { report: "media", timeoutMs: 1000, location: "nld" });
    expect(probe.httpCode).toBe(200);
    expect(s.jobs).toEqual([job]);
  });

  it("turns every way of failing into one ChildJobError with its reason", async () => {
    const job = childJob(parent, "x", ScanKind.TAG, { case: "tag", value: {} });
    expect(await failure(runChildJob({ submit: async () => { throw new NoWorkerError("no worker resources: none", 7); } }, job, { report: "tag", timeoutMs: 1000 })))
      .toEqual({ reason: "no_worker", message: "no worker resources: none", retryAfterSeconds: 7 });
    expect(await failure(runChildJob({ submit: async () => { throw new Error("the scan did not finish in time"); } }, job, { report: "tag", timeoutMs: 1000 })))
      .toEqual({ reason: "failed", message: "the scan did not finish in time" });
    const refused = await runChildJob(answering({ case: "error", value: { type: ErrorType.PAYLOAD, message: "data: bad" } }), job, { report: "tag", timeoutMs: 1000 }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ChildJobError);
    expect((refused as ChildJobError).isPayload).toBe(true);
    expect(await failure(runChildJob(answering({ case: "tag", value: create(TagReportSchema) }), job, { report: "zip", timeoutMs: 1000 })))
      .toEqual({ reason: "wrong_report", message: "expected a zip report, got tag" });
    expect(await failure(runChildJob(answering({ case: "tag", value: create(TagReportSchema) }), job, { report: "tag", timeoutMs: 0 })))
      .toMatchObject({ reason: "failed" });
  });

  it("gives a child the parent's remaining time less a margin, capped", () => {
    const withDeadline = create(ScanJobSchema, { ...parent, deadlineUnixMs: BigInt(Date.now() + 10_000) });
    const t = childTimeoutMs(withDeadline, { marginMs: 1000, fallbackMs: 60_000 });
    expect(t).toBeGreaterThan(8_000);
    expect(t).toBeLessThanOrEqual(9_000);
    expect(childTimeoutMs(withDeadline, { marginMs: 1000, fallbackMs: 60_000, capMs: 5000 })).toBe(5000);
    expect(childTimeoutMs(parent, { marginMs: 1000, fallbackMs: 60_000 })).toBe(60_000);
  });
});
