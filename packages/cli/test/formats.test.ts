// The CLI's pure parts: the flat list of tests from each report shape, the exit status it implies, the command line,
// and the four output formats — hostile strings from a report included.
import { describe, expect, it } from "vitest";
import { parseArgs, UsageError } from "../src/args.mjs";
import { render, type Outcome } from "../src/formats.mjs";
import { exitCodeOf, flattenTests } from "../src/results.mjs";

const result = (over: Record<string, unknown>) => ({
  name: "A test", data_type: "int", unit: "bytes", expected: 150000, expected_text: "at most 150 KB", actual: 1000, operator: "<=", result: "passed", message: "1 KB against at most 150 KB", ...over,
});

const TAG_TESTS = {
  initial_load: result({ test: "initial_load", name: "Initial Load", result: "failed", actual: 200000, message: "Initial Load: 200 KB, but expected at most 150 KB for 300x250" }),
  ssl: result({ test: "ssl", name: "SSL", result: "passed" }),
  creative_border: result({ test: "creative_border", name: "Border", result: "error", actual: undefined, message: "test could not be evaluated: no screenshot" }),
};
const VAST_TESTS = {
  xml: { wrapper_chain: result({ name: "Wrapper chain", result: "failed", message: "hop 1 (http://x/vast.xml): refused" }) },
  creative_0_mediafile_0: { loudness: result({ name: "Loudness", result: "passed" }) },
};

const info = { input: "ads/banner.html", kind: "tag", endpoint: "/v3/scanTag", specId: 0, baseUrl: "http://localhost:8080", version: "1.0.0", ms: 3210, startedAt: new Date("2026-11-26T10:00:00.000Z") };
const reportOutcome = (tests: object, over: Record<string, unknown> = {}): Outcome => {
  const report = { job_id: "job-1", name: "Spring banner", scan_results: { passed: 1, failed: 1, report_url: "http://localhost:8080/r/tok", tests }, ...over };
  return { kind: "report", info, report, text: JSON.stringify(report), tests: flattenTests(tests) };
};

describe("flattenTests and the exit status", () => {
  it("reads ad tag tests (id → result) and VAST groups (group → id → result), failures first", () => {
    expect(flattenTests(TAG_TESTS).map((t) => [t.group, t.id, t.result])).toEqual([["", "initial_load", "failed"], ["", "creative_border", "error"], ["", "ssl", "passed"]]);
    expect(flattenTests(VAST_TESTS).map((t) => [t.group, t.id, t.result])).toEqual([["xml", "wrapper_chain", "failed"], ["creative_0_mediafile_0", "loudness", "passed"]]);
    // Lists of results (a shape newer kinds may use) and unknown result words.
    expect(flattenTests({ audio: [result({ test: "lufs", result: "passed" }), result({ result: "skipped?" })] }).map((t) => [t.group, t.id, t.result])).toEqual([["audio", "1", "error"], ["audio", "lufs", "passed"]]);
    expect(flattenTests(undefined)).toEqual([]);
  });

  it("is 0 only when every test passed", () => {
    expect(exitCodeOf(flattenTests({ a: result({}), b: result({}) }))).toBe(0);
    expect(exitCodeOf(flattenTests({}))).toBe(0);
    expect(exitCodeOf(flattenTests(TAG_TESTS))).toBe(1);
    expect(exitCodeOf(flattenTests({ a: result({ result: "error" }) }))).toBe(1);
  });
});

describe("the command line", () => {
  it("takes one creative and checked options", () => {
    expect(parseArgs(["scan", "b.zip", "--spec", "1", "--format=sarif", "--name", "x y", "--workspace", "7", "--kind", "zip", "--output", "o.sarif", "--timeout", "30", "--retries", "0"])).toEqual({
      command: "scan", input: "b.zip", specId: 1, format: "sarif", name: "x y", workspaceId: 7, kind: "zip", output: "o.sarif", baseUrl: undefined, timeoutS: 30, retries: 0,
    });
    expect(parseArgs(["scan", "--", "-odd-name.html"])).toMatchObject({ input: "-odd-name.html", specId: 0, format: "text", retries: 2 });
    expect(() => parseArgs([])).toThrow(/no command given/);
    expect(parseArgs(["--version"])).toEqual({ command: "version" });
  });

  it("refuses what it cannot use, saying what", () => {
    for (const [argv, message] of [
      [["scan"], /name the creative/],
      [["scan", "a.zip", "b.zip"], /one creative at a time/],
      [["scan", "a.zip", "--format", "xml"], /--format: must be one of text, json, junit, sarif/],
      [["scan", "a.zip", "--spec", "-1"], /--spec: must be an integer/],
      [["scan", "a.zip", "--spec", "1.5"], /--spec: must be an integer/],
      [["scan", "a.zip", "--kind", "gif"], /--kind: must be one of/],
      [["scan", "a.zip", "--spec"], /--spec: needs a value/],
      [["scan", "a.zip", "--colour", "red"], /unknown option --colour/],
      [["scan", "a.zip", "--spec", "1", "--spec", "2"], /given twice/],
      [["scan", "a.zip", "--base-url", "ftp://x"], /--base-url: must be an http\(s\) URL/],
      [["lint", "a.zip"], /unknown command "lint"/],
    ] as const) {
      expect(() => parseArgs([...argv]), argv.join(" ")).toThrow(UsageError);
      expect(() => parseArgs([...argv]), argv.join(" ")).toThrow(message);
    }
  });
});

describe("output formats", () => {
  it("text: failures first with their reason, the verdict, the report link", () => {
    const out = render(reportOutcome(TAG_TESTS), "text");
    expect(out.split("\n")).toEqual([
      "cva scan ads/banner.html → POST /v3/scanTag (spec 0)",
      "  FAIL  initial_load     Initial Load — 200 KB, but expected at most 150 KB for 300x250",
      // The API's message starts with the test's name, already on the line: said once.
      "  ERROR creative_border  Border — test could not be evaluated: no screenshot",
      "  pass  ssl              SSL",
      "FAILED: 1 failed, 1 could not be evaluated, 1 passed",
      "report: http://localhost:8080/r/tok",
      "",
    ]);
    expect(render(reportOutcome({ ssl: TAG_TESTS.ssl }), "text")).toContain("PASSED: all 1 tests passed");
    expect(render(reportOutcome(TAG_TESTS), "text", { color: true })).toContain("\x1b[31mFAIL \x1b[0m");
  });

  it("json: the API's bytes as returned", () => {
    const o = reportOutcome(TAG_TESTS);
    expect(render(o, "json")).toBe(`${o.text}\n`);
    expect(render({ kind: "error", info, errorType: "quota_error", message: "used up", text: '{"error_type":"quota_error","message":"used up"}' }, "json")).toBe('{"error_type":"quota_error","message":"used up"}\n');
  });

  it("junit: one case per test, the reason as the failure message, escaped; the report URL as a property", () => {
    const hostile = { x: result({ test: "x", name: 'Evil <name> & "q"', result: "failed", message: 'loaded "http://a/?a=1&b=<2>" \u0000\u001b]]>' }) };
    const xml = render(reportOutcome({ ...TAG_TESTS, ...hostile }), "junit");
    expect(xml).toMatch(/^<\?xml version="1\.0" encoding="UTF-8"\?>\n<testsuites name="cva" tests="4" failures="2" errors="1" skipped="0" time="3\.210">/);
    expect(xml).toContain('<testsuite name="Spring banner" tests="4" failures="2" errors="1" skipped="0" time="3.210" timestamp="2026-11-26T10:00:00">');
    expect(xml).toContain('<property name="report_url" value="http://localhost:8080/r/tok"/>');
    expect(xml).toContain('<testcase name="initial_load: Initial Load" classname="cva.tag" time="0">');
    expect(xml).toContain('<failure message="Initial Load: 200 KB, but expected at most 150 KB for 300x250" type="failed">');
    expect(xml).toContain('<error message="test could not be evaluated: no screenshot" type="error">');
    expect(xml).toContain('<testcase name="ssl: SSL" classname="cva.tag" time="0"/>');
    expect(xml).toContain('name="x: Evil &lt;name&gt; &amp; &quot;q&quot;"');
    expect(xml).toContain('message="loaded &quot;http://a/?a=1&amp;b=&lt;2&gt;&quot; ]]&gt;"');
    expect(xml).not.toMatch(/[\u0000-\u0008\u001b]/);
    expect(xml).toContain("report: http://localhost:8080/r/tok</failure>");
    // VAST groups become the class name.
    expect(render(reportOutcome(VAST_TESTS), "junit")).toContain('classname="cva.tag.xml"');
    // A scan that did not run: one errored case with the API's error.
    const err = render({ kind: "error", info, errorType: "payload_error", message: "data: not a zip archive", text: "" }, "junit");
    expect(err).toContain('<error message="payload_error: data: not a zip archive" type="payload_error">data: not a zip archive</error>');
    expect(err).toContain('tests="1" failures="0" errors="1"');
  });

  it("sarif: one rule per test id, one result per test, pass/fail/review with the levels SARIF allows", () => {
    const doc = JSON.parse(render(reportOutcome({ ...VAST_TESTS, again: { wrapper_chain: VAST_TESTS.xml.wrapper_chain } }), "sarif"));
    expect(doc).toMatchObject({ version: "2.1.0", $schema: expect.stringContaining("sarif-2.1.0") });
    const run = doc.runs[0];
    expect(run.tool.driver).toMatchObject({ name: "cva", version: "1.0.0", informationUri: "http://localhost:8080/docs" });
    expect(run.tool.driver.rules.map((r: { id: string }) => r.id)).toEqual(["xml/wrapper_chain", "again/wrapper_chain", "creative_0_mediafile_0/loudness"]);
    expect(run.results.map((r: { ruleId: string; ruleIndex: number; kind: string; level: string }) => [r.ruleId, r.ruleIndex, r.kind, r.level])).toEqual([
      ["xml/wrapper_chain", 0, "fail", "error"], ["again/wrapper_chain", 1, "fail", "error"], ["creative_0_mediafile_0/loudness", 2, "pass", "none"],
    ]);
    expect(run.results[0]).toMatchObject({ message: { text: "hop 1 (http://x/vast.xml): refused" }, hostedViewerUri: "http://localhost:8080/r/tok", locations: [{ physicalLocation: { artifactLocation: { uri: "ads/banner.html", index: 0 } } }] });
    expect(JSON.parse(render(reportOutcome(TAG_TESTS), "sarif")).runs[0].results.find((r: { ruleId: string }) => r.ruleId === "creative_border")).toMatchObject({ kind: "review", level: "none" });
    const err = JSON.parse(render({ kind: "error", info: { ...info, input: "C:\\ads\\my banner.zip" }, errorType: "authentication_error", message: "X-ApiKey: unknown", text: "" }, "sarif"));
    expect(err.runs[0].invocations[0]).toMatchObject({ executionSuccessful: false, toolExecutionNotifications: [{ level: "error", message: { text: "authentication_error: X-ApiKey: unknown" } }] });
    expect(err.runs[0].artifacts[0].location.uri).toBe("C:/ads/my%20banner.zip");
  });
});
