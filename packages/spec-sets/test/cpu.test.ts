import { TestOutcome } from "@cva/contracts";
import { describe, expect, it } from "vitest";
import { evaluateTag } from "../src/index.ts";
import { tagReport } from "./fixtures.ts";

const find = (r: ReturnType<typeof evaluateTag>, id: string) => r.tests.find((t) => t.test === id);

describe("CPU load on the reference device (cpu_average, cpu_peak)", () => {
  it("IAB 2017's 30% per active ad is held against the average on the reference device", () => {
    const ok = evaluateTag(tagReport({ cpu: { averagePercent: 29.9, peakPercent: 95 } }), 0);
    expect(find(ok, "cpu_average")).toMatchObject({ result: TestOutcome.PASSED, expected: { value: 30 }, actual: 29.9 });
    const heavy = evaluateTag(tagReport({ cpu: { averagePercent: 30.1, peakPercent: 40 } }), 0);
    expect(find(heavy, "cpu_average")).toMatchObject({ result: TestOutcome.FAILED });
    expect(find(heavy, "cpu_average")!.message).toMatch(/30/);
  });

  it("the peak has no published limit: not judged in any set, and said so", () => {
    for (const id of [0, 1]) expect(find(evaluateTag(tagReport(), id), "cpu_peak")).toBeUndefined();
  });

  it("a report without cpu (scanner not calibrated) is an error, never a pass or a fail", () => {
    const r = evaluateTag(tagReport({ cpu: undefined }), 0);
    expect(find(r, "cpu_average")).toMatchObject({ result: TestOutcome.ERROR });
    expect(find(r, "cpu_average")!.message).toMatch(/calibration/);
  });
});
