import { create } from "@bufbuild/protobuf";
import {
  ScanResultsSchema,
  TestOutcome,
  TestResultSchema,
  type ScanResults,
  type AudioFileReport,
  type ImageFileReport,
  type TagReport,
  type TestResult,
  type VastReport,
  type VideoFileReport,
  type ZipReport,
} from "@cva/contracts";
import { SPEC_SETS } from "./sets/index.ts";
import type { Expected, LookupKey, Operator, Rule, SpecSet, Threshold } from "./sets/types.ts";
import { audioFileTests, imageFileTests, mediaFileTests, tagTests, vastXmlTests, videoFileTests, zipTests } from "./checks/registry.ts";
import type { MediaFileInput, Measurement, Scope, TestMeta } from "./types.ts";

export class UnknownSpecSetError extends Error {
  readonly specId: number;
  constructor(specId: number) {
    super(`unknown spec set: ${specId}`);
    this.name = "UnknownSpecSetError";
    this.specId = specId;
  }
}

export function isKnownSpecId(id: number): boolean {
  return SPEC_SETS.has(id);
}

export function listSpecSets(): { id: number; name: string; description: string }[] {
  return [...SPEC_SETS.values()].map(({ id, name, description }) => ({ id, name, description }));
}

export function getSpecSet(id: number): SpecSet {
  const set = SPEC_SETS.get(id);
  if (!set) throw new UnknownSpecSetError(id);
  return set;
}

/** Group name of a VAST media file's tests; both indexes start at 0. */
export function mediaFileGroup(creativeIndex: number, mediaFileIndex: number): string {
  return `creative_${creativeIndex}_mediafile_${mediaFileIndex}`;
}

/** "WxH" the size-dependent thresholds are looked up by: the declared size if the creative declares one. */
export function creativeSizeKey(report: TagReport): string | undefined {
  for (const d of [report.declaredDimensions, report.dimensions]) {
    if (d && d.width > 0 && d.height > 0) return `${d.width}x${d.height}`;
  }
  return undefined;
}

function audioProfileKey(input: MediaFileInput): string | undefined {
  const audio = input.mediaFile.probe?.fileInfo?.audio;
  if (!audio || !audio.codec) return undefined;
  return `${audio.codec}:${audio.profile}`;
}

export function evaluateTag(report: TagReport, specId: number): ScanResults {
  const set = getSpecSet(specId);
  const keys: Partial<Record<LookupKey, string>> = { creative_size: creativeSizeKey(report) };
  const results: TestResult[] = [];
  for (const rule of rulesOf(set, "tag")) {
    const test = tagTests.get(rule.test);
    const r = runRule(rule, keys, "", test?.meta, () => test!.measure(report));
    if (r) results.push(r);
  }
  return summarise(results, specId);
}

/**
 * A v3 zip: the zip tests on the zip report, plus the ad tag tests on its render (an HTML5 zip is an ad once served:
 * its weight, CPU, animation and the rest are judged as a tag's), in one flat map — the ids do not overlap.
 * Size-dependent thresholds use the render's declared (ad.size) or measured size.
 */
export function evaluateZip(report: ZipReport, specId: number): ScanResults {
  const set = getSpecSet(specId);
  const results: TestResult[] = [];
  const keys: Partial<Record<LookupKey, string>> = { creative_size: report.render ? creativeSizeKey(report.render) : undefined };
  for (const rule of rulesOf(set, "zip")) {
    const test = zipTests.get(rule.test);
    const r = runRule(rule, keys, "", test?.meta, () => test!.measure(report));
    if (r) results.push(r);
  }
  if (report.render) {
    const render = report.render;
    for (const rule of rulesOf(set, "tag")) {
      const test = tagTests.get(rule.test);
      const r = runRule(rule, keys, "", test?.meta, () => test!.measure(render));
      if (r) results.push(r);
    }
  }
  return summarise(results, specId);
}

export function evaluateVast(report: VastReport, specId: number): ScanResults {
  const set = getSpecSet(specId);
  const results: TestResult[] = [];
  for (const rule of rulesOf(set, "vast_xml")) {
    const test = vastXmlTests.get(rule.test);
    const r = runRule(rule, {}, "xml", test?.meta, () => test!.measure(report));
    if (r) results.push(r);
  }
  const mediaRules = rulesOf(set, "vast_mediafile");
  report.creatives.forEach((creative, creativeIndex) => {
    creative.mediafiles.forEach((mediaFile, mediaFileIndex) => {
      const input: MediaFileInput = { report, creative, creativeIndex, mediaFile, mediaFileIndex };
      const keys: Partial<Record<LookupKey, string>> = { audio_profile: audioProfileKey(input) };
      const group = mediaFileGroup(creativeIndex, mediaFileIndex);
      for (const rule of mediaRules) {
        const test = mediaFileTests.get(rule.test);
        const r = runRule(rule, keys, group, test?.meta, () => test!.measure(input));
        if (r) results.push(r);
      }
    });
  });
  return summarise(results, specId);
}

/** A raw video file (POST /v3/scanVideo): the video_file tests, one flat map. */
export function evaluateVideoFile(report: VideoFileReport, specId: number): ScanResults {
  const set = getSpecSet(specId);
  const results: TestResult[] = [];
  for (const rule of rulesOf(set, "video_file")) {
    const test = videoFileTests.get(rule.test);
    const r = runRule(rule, {}, "", test?.meta, () => test!.measure(report));
    if (r) results.push(r);
  }
  return summarise(results, specId);
}

/** A raw audio file (POST /v3/scanAudio). */
export function evaluateAudioFile(report: AudioFileReport, specId: number): ScanResults {
  const set = getSpecSet(specId);
  const results: TestResult[] = [];
  for (const rule of rulesOf(set, "audio_file")) {
    const test = audioFileTests.get(rule.test);
    const r = runRule(rule, {}, "", test?.meta, () => test!.measure(report));
    if (r) results.push(r);
  }
  return summarise(results, specId);
}

/** An image file (POST /v3/scanImage): size-dependent figures are looked up by its displayed "WxH". */
export function evaluateImageFile(report: ImageFileReport, specId: number): ScanResults {
  const set = getSpecSet(specId);
  const results: TestResult[] = [];
  const measured = report.width > 0 && report.height > 0 && !report.notMeasured.includes("width");
  const keys: Partial<Record<LookupKey, string>> = { creative_size: measured ? `${report.width}x${report.height}` : undefined };
  for (const rule of rulesOf(set, "image_file")) {
    const test = imageFileTests.get(rule.test);
    const r = runRule(rule, keys, "", test?.meta, () => test!.measure(report));
    if (r) results.push(r);
  }
  return summarise(results, specId);
}

function rulesOf(set: SpecSet, scope: Scope): Rule[] {
  return set.rules.filter((r) => r.scope === scope);
}

function resolveThreshold(rule: Rule, keys: Partial<Record<LookupKey, string>>): Threshold | undefined {
  if (rule.kind === "fixed") return rule;
  const key = keys[rule.key];
  const entry = key === undefined ? undefined : rule.table[key];
  return entry && { operator: rule.operator, expected: entry.expected, expected_text: entry.expected_text };
}

/** Runs one rule; undefined when the test does not apply (no figure for this creative, or measure returned null). */
function runRule(
  rule: Rule,
  keys: Partial<Record<LookupKey, string>>,
  group: string,
  meta: TestMeta | undefined,
  measure: () => Measurement,
): TestResult | undefined {
  const threshold = resolveThreshold(rule, keys);
  if (!threshold) return undefined;
  const base = {
    test: rule.test,
    group,
    name: meta?.name ?? rule.test,
    dataType: meta?.data_type ?? "",
    unit: meta?.unit ?? "",
    expected: expectedField(threshold.expected),
    expectedText: threshold.expected_text,
    operator: threshold.operator,
    source: rule.source,
  };
  const error = (message: string) =>
    create(TestResultSchema, { ...base, actual: 0, result: TestOutcome.ERROR, message: `test could not be evaluated: ${message}` });

  // A set naming a test that has no module is a data bug; it shows as an error result instead of failing the scan.
  if (!meta) return error(`no test module "${rule.test}" for scope ${rule.scope}`);
  let measured: Measurement;
  try {
    measured = measure();
  } catch (err) {
    return error(err instanceof Error ? err.message : String(err));
  }
  if (measured === null) return undefined;
  const value = typeof measured === "number" ? measured : measured.value;
  const detail = typeof measured === "number" ? "" : measured.detail;
  if (Number.isNaN(value)) return error("the measurement is not a number");
  let passed: boolean;
  try {
    passed = compare(threshold.operator, threshold.expected, value);
  } catch (err) {
    return error(err instanceof Error ? err.message : String(err));
  }
  const unbounded = !Number.isFinite(value);
  return create(TestResultSchema, {
    ...base,
    // Non-finite values cannot cross JSON as numbers; -1 is the report's own "never happened before the time-out".
    actual: unbounded ? -1 : value,
    result: passed ? TestOutcome.PASSED : TestOutcome.FAILED,
    // A test that knows why it is unbounded (an image that loops forever) says so; otherwise it is the scan's time-out.
    message: unbounded
      ? detail ? `${meta.name}: unbounded (shown as -1), but expected ${threshold.expected_text}. ${detail}` : "unbounded: did not happen or did not end before the scan's time-out (shown as -1)"
      : verdictMessage(meta, value, threshold.expected_text, passed, detail),
  });
}

/**
 * Why a test passed or failed, in words: what was measured against what was expected ("Initial Load: 200 KB, but
 * expected at most 150 KB for 300x250"), plus what the test itself found (`detail`). Every result carries one, so a
 * failure never reaches a client without its reason.
 */
export function verdictMessage(meta: TestMeta, value: number, expectedText: string, passed: boolean, detail = ""): string {
  const shown = meta.data_type === "bool"
    ? (value === 1 ? "yes" : "no")
    : `${Number.isInteger(value) ? value : Number(value.toFixed(2))}${meta.unit && meta.unit !== "count" ? ` ${meta.unit}` : ""}`;
  const base = passed ? `${meta.name}: ${shown} (expected ${expectedText})` : `${meta.name}: ${shown}, but expected ${expectedText}`;
  return detail ? `${base}. ${detail}` : base;
}

function expectedField(expected: Expected): TestResult["expected"] {
  return typeof expected === "number"
    ? { case: "expectedNumber", value: expected }
    : { case: "expectedString", value: `${expected[0]}#${expected[1]}` };
}

/** `actual <operator> expected`; "><" includes both bounds. */
export function compare(operator: Operator, expected: Expected, actual: number): boolean {
  if (operator === "><") {
    if (typeof expected === "number") throw new Error('operator "><" needs two bounds');
    return actual >= expected[0] && actual <= expected[1];
  }
  if (typeof expected !== "number") throw new Error(`operator "${operator}" needs a single bound`);
  switch (operator) {
    case "<":
      return actual < expected;
    case "<=":
      return actual <= expected;
    case ">":
      return actual > expected;
    case ">=":
      return actual >= expected;
    case "==":
      return actual === expected;
  }
}

function summarise(tests: TestResult[], specId: number): ScanResults {
  return create(ScanResultsSchema, {
    passed: tests.filter((t) => t.result === TestOutcome.PASSED).length,
    failed: tests.filter((t) => t.result === TestOutcome.FAILED).length,
    tests,
    specId,
  });
}
