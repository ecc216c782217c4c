import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import {
  ErrorType, MediaInputSchema, MediaProbeSchema, ScanErrorSchema, ScanJobSchema, ScanKind, TagInputSchema, VastReportSchema, type ScanJob,
} from "@cva/contracts";
import { createDirectRunner, createSlots, silentLogger, type JobOutcome, type RunJob } from "@cva/platform";

const media = { case: "media" as const, value: create(MediaInputSchema, { url: "https://x.test/a.mp4" }) };
const job = (input: ScanJob["input"] = media): ScanJob => create(ScanJobSchema, { jobId: "job-1", kind: ScanKind.MEDIA, input });
const signal = () => new AbortController().signal;

function runner(run: RunJob, size = 1) {
  const slots = createSlots(size);
  const direct = createDirectRunner({ label: "media prober", slots, run, logger: silentLogger(), failureMessage: "the media file could not be probed" });
  return { slots, direct };
}

async function refusal(p: Promise<unknown>): Promise<{ code: Code; message: string }> {
  const err = await p.then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(ConnectError);
  return { code: (err as ConnectError).code, message: (err as ConnectError).rawMessage };
}

const answer = (outcome: JobOutcome): RunJob => async () => outcome;
const probe: JobOutcome = { case: "media", value: create(MediaProbeSchema, { url: "https://x.test/a.mp4", httpCode: 200 }) };

describe("createSlots", () => {
  it("refuses direct calls when full, always counts queue jobs, never goes below zero", () => {
    const slots = createSlots(2);
    expect(slots.tryAcquire()).toBe(true);
    slots.acquire();
    expect(slots.busy()).toBe(2);
    expect(slots.tryAcquire()).toBe(false);
    slots.acquire();
    expect(slots.busy()).toBe(3);
    for (let i = 0; i < 5; i++) slots.release();
    expect(slots.busy()).toBe(0);
  });
});

describe("direct runner", () => {
  it("returns the report and frees its slot", async () => {
    const { slots, direct } = runner(answer(probe));
    const report = await direct(job(), signal(), { report: "media", expect: "media" });
    expect(report.httpCode).toBe(200);
    expect(slots.busy()).toBe(0);
  });

  it("refuses a missing job and a job of another input before taking a slot", async () => {
    let ran = 0;
    const { slots, direct } = runner(async () => (ran++, probe));
    expect(await refusal(direct(undefined, signal(), { report: "media" }))).toEqual({ code: Code.InvalidArgument, message: "job is required" });
    const tag = job({ case: "tag", value: create(TagInputSchema, {}) });
    expect(await refusal(direct(tag, signal(), { report: "media", expect: "media" }))).toEqual({ code: Code.InvalidArgument, message: "job.media is required" });
    expect(ran).toBe(0);
    expect(slots.busy()).toBe(0);
  });

  it("answers RESOURCE_EXHAUSTED when every slot is busy", async () => {
    const { slots, direct } = runner(answer(probe));
    slots.acquire();
    expect(await refusal(direct(job(), signal(), { report: "media" }))).toEqual({
      code: Code.ResourceExhausted, message: "no worker resources: the media prober is busy",
    });
    expect(slots.busy()).toBe(1);
  });

  it("maps a payload error to INVALID_ARGUMENT and a processing error to UNAVAILABLE, messages as they are", async () => {
    const payload = runner(answer({ case: "error", value: create(ScanErrorSchema, { type: ErrorType.PAYLOAD, message: "data: bad url" }) }));
    expect(await refusal(payload.direct(job(), signal(), { report: "media" }))).toEqual({ code: Code.InvalidArgument, message: "data: bad url" });
    expect(payload.slots.busy()).toBe(0);
    const processing = runner(answer({ case: "error", value: create(ScanErrorSchema, { type: ErrorType.PROCESSING, message: "no render" }) }));
    expect(await refusal(processing.direct(job(), signal(), { report: "media" }))).toEqual({ code: Code.Unavailable, message: "no render" });
  });

  it("answers UNAVAILABLE with the failure message when the job produced another kind of report", async () => {
    const { direct } = runner(answer({ case: "vast", value: create(VastReportSchema, {}) }));
    expect(await refusal(direct(job(), signal(), { report: "media" }))).toEqual({ code: Code.Unavailable, message: "the media file could not be probed" });
  });

  it("hides a thrown error behind INTERNAL and the failure message, or CANCELED when the call was aborted", async () => {
    const thrown = new Error("ECONNREFUSED 10.1.2.3:4222");
    const { slots, direct } = runner(async () => {
      throw thrown;
    });
    const err = await direct(job(), signal(), { report: "media" }).catch((e: unknown) => e);
    expect(await refusal(Promise.reject(err))).toEqual({ code: Code.Internal, message: "the media file could not be probed" });
    // Kept for this process's logs, never sent: Connect writes code and message only.
    expect((err as ConnectError).cause).toBe(thrown);
    expect(slots.busy()).toBe(0);
    const ac = new AbortController();
    ac.abort();
    expect(await refusal(direct(job(), ac.signal, { report: "media" }))).toEqual({ code: Code.Canceled, message: "cancelled" });
    expect(slots.busy()).toBe(0);
  });
});
