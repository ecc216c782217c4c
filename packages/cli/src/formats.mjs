// @ts-check
// The four output formats of `cva scan`. Each takes what the scan produced — a report with its flattened tests, or the
// error that stopped it — and returns the text to print. Every string from the report (test messages quote URLs and
// names from the creative) is escaped for the format it goes into.
import { qualifiedId, reasonOf } from "./results.mjs";

/** @typedef {import("./results.mjs").TestCase} TestCase */
/** @typedef {"text" | "json" | "junit" | "sarif"} Format */
export const FORMATS = /** @type {Format[]} */ (["text", "json", "junit", "sarif"]);

/**
 * @typedef {object} RunInfo
 * @property {string} input      as given on the command line (file path or URL)
 * @property {string} kind
 * @property {string} endpoint
 * @property {number} specId
 * @property {string} baseUrl
 * @property {string} version    of the CLI
 * @property {number} ms         request time
 * @property {Date} startedAt
 */

/**
 * @typedef {{ kind: "report", info: RunInfo, report: Record<string, any>, text: string, tests: TestCase[] }
 *   | { kind: "error", info: RunInfo, errorType: string, message: string, text: string }} Outcome
 */

/** @param {Outcome} o @param {Format} format @param {{ color?: boolean }} [opts] */
export function render(o, format, opts = {}) {
  switch (format) {
    case "json":
      return json(o);
    case "junit":
      return junit(o);
    case "sarif":
      return `${JSON.stringify(sarif(o), null, 2)}\n`;
    default:
      return textOf(o, opts.color === true);
  }
}

/** The API's own bytes: the report exactly as returned, or its error body. */
function json(/** @type {Outcome} */ o) {
  if (o.text) return o.text.endsWith("\n") ? o.text : `${o.text}\n`;
  return `${JSON.stringify({ error_type: o.kind === "error" ? o.errorType : "", message: o.kind === "error" ? o.message : "" })}\n`;
}

const reportUrlOf = (/** @type {Record<string, any>} */ r) => (typeof r?.scan_results?.report_url === "string" ? r.scan_results.report_url : "");

// ---- text ---------------------------------------------------------------------------------------------------------

/** One line per test (failures first, with their reason), the verdict, the report link. */
function textOf(/** @type {Outcome} */ o, /** @type {boolean} */ color) {
  const paint = (/** @type {string} */ code, /** @type {string} */ s) => (color ? `\x1b[${code}m${s}\x1b[0m` : s);
  const head = `cva scan ${o.info.input} → POST ${o.info.endpoint} (spec ${o.info.specId})`;
  if (o.kind === "error") return `${head}\n${paint("31", "ERROR")} ${o.errorType}: ${oneLine(o.message)}\n`;
  const failed = o.tests.filter((t) => t.result === "failed").length;
  const errors = o.tests.filter((t) => t.result === "error").length;
  const passed = o.tests.length - failed - errors;
  const lines = [head];
  const width = Math.min(40, Math.max(0, ...o.tests.map((t) => qualifiedId(t).length)));
  for (const t of o.tests) {
    const label = t.result === "failed" ? paint("31", "FAIL ") : t.result === "error" ? paint("33", "ERROR") : paint("32", "pass ");
    lines.push(`  ${label} ${qualifiedId(t).padEnd(width)}  ${oneLine(t.name)}${t.result === "passed" ? "" : ` — ${oneLine(withoutName(t, reasonOf(t)))}`}`);
  }
  const verdict = failed + errors === 0 ? paint("32", `PASSED: all ${passed} tests passed`) : paint("31", `FAILED: ${failed} failed, ${errors} could not be evaluated, ${passed} passed`);
  lines.push(verdict);
  const url = reportUrlOf(o.report);
  if (url) lines.push(`report: ${url}`);
  return `${lines.join("\n")}\n`;
}

const oneLine = (/** @type {string} */ s) => s.replace(/[\r\n\t]+/g, " ").replace(/[\u0000-\u001f\u007f]/g, "");

// ---- JUnit XML ----------------------------------------------------------------------------------------------------

// XML 1.0 allows tab, newline, carriage return and the characters from U+0020 up; anything else (a control
// character in a creative's console message) is dropped rather than producing a document no CI can parse.
const XML_INVALID = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;
const xml = (/** @type {unknown} */ v) =>
  String(v ?? "").replace(XML_INVALID, "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" })[c] ?? c);

/** The report's name for the suite: its `name`, else the input. */
const suiteName = (/** @type {Outcome} */ o) => (o.kind === "report" && typeof o.report.name === "string" && o.report.name) || o.info.input;

/** One <testsuite> for the scanned creative, one <testcase> per test, the reason as the failure message. */
function junit(/** @type {Outcome} */ o) {
  const secs = (o.info.ms / 1000).toFixed(3);
  const stamp = o.info.startedAt.toISOString().replace(/\.\d{3}Z$/, "");
  const out = ['<?xml version="1.0" encoding="UTF-8"?>'];
  if (o.kind === "error") {
    // The scan did not run: one errored case, so the CI's test view says why instead of showing nothing.
    out.push(
      `<testsuites name="cva" tests="1" failures="0" errors="1" skipped="0" time="${secs}">`,
      `  <testsuite name="${xml(suiteName(o))}" tests="1" failures="0" errors="1" skipped="0" time="${secs}" timestamp="${stamp}">`,
      `    <properties><property name="endpoint" value="${xml(o.info.endpoint)}"/><property name="spec_id" value="${o.info.specId}"/></properties>`,
      `    <testcase name="scan" classname="cva.${xml(o.info.kind)}" time="${secs}">`,
      `      <error message="${xml(`${o.errorType}: ${o.message}`)}" type="${xml(o.errorType)}">${xml(o.message)}</error>`,
      "    </testcase>",
      "  </testsuite>",
      "</testsuites>",
    );
    return `${out.join("\n")}\n`;
  }
  const url = reportUrlOf(o.report);
  const failures = o.tests.filter((t) => t.result === "failed").length;
  const errors = o.tests.filter((t) => t.result === "error").length;
  const counts = `tests="${o.tests.length}" failures="${failures}" errors="${errors}" skipped="0"`;
  out.push(`<testsuites name="cva" ${counts} time="${secs}">`);
  out.push(`  <testsuite name="${xml(suiteName(o))}" ${counts} time="${secs}" timestamp="${stamp}">`);
  out.push("    <properties>");
  for (const [k, v] of [["report_url", url], ["job_id", o.report.job_id], ["input", o.info.input], ["endpoint", o.info.endpoint], ["spec_id", o.info.specId]]) {
    out.push(`      <property name="${k}" value="${xml(v)}"/>`);
  }
  out.push("    </properties>");
  for (const t of o.tests) {
    const classname = `cva.${o.info.kind}${t.group ? `.${t.group}` : ""}`;
    const open = `    <testcase name="${xml(`${t.id}: ${t.name}`)}" classname="${xml(classname)}" time="0"`;
    if (t.result === "passed") {
      out.push(`${open}/>`);
      continue;
    }
    const detail = [
      reasonOf(t),
      t.expected_text ? `expected: ${t.expected_text}` : "",
      t.actual !== undefined ? `actual: ${t.actual}${t.unit ? ` ${t.unit}` : ""}` : "",
      url ? `report: ${url}` : "",
    ].filter(Boolean).join("\n");
    const tag = t.result === "failed" ? "failure" : "error";
    out.push(`${open}>`, `      <${tag} message="${xml(reasonOf(t))}" type="${t.result}">${xml(detail)}</${tag}>`, "    </testcase>");
  }
  if (url) out.push(`    <system-out>report: ${xml(url)}</system-out>`);
  out.push("  </testsuite>", "</testsuites>");
  return `${out.join("\n")}\n`;
}

// ---- SARIF 2.1.0 --------------------------------------------------------------------------------------------------

/** The creative as a SARIF artifact URI: the URL itself, or the file path with forward slashes, URI-encoded. */
const artifactUri = (/** @type {string} */ input) => (/^https?:\/\//i.test(input) ? input : encodeURI(input.replace(/\\/g, "/")));

/**
 * One run, one rule per test id, one result per test: kind "fail" (level "error") for a failed test, "pass" for a
 * passed one, "review" for one that could not be evaluated (SARIF: a result whose kind is not "fail" has level
 * "none"). The report page is each result's hostedViewerUri.
 */
function sarif(/** @type {Outcome} */ o) {
  const driver = {
    name: "cva",
    fullName: "Creative Validation API",
    version: o.info.version,
    informationUri: new URL("/docs", o.info.baseUrl).href,
    /** @type {Array<Record<string, unknown>>} */
    rules: [],
  };
  const artifacts = [{ location: { uri: artifactUri(o.info.input) } }];
  const location = [{ physicalLocation: { artifactLocation: { uri: artifactUri(o.info.input), index: 0 } } }];
  if (o.kind === "error") {
    return {
      $schema: "https://json.schemastore.org/sarif-2.1.0.json",
      version: "2.1.0",
      runs: [{
        tool: { driver },
        invocations: [{
          executionSuccessful: false,
          toolExecutionNotifications: [{ level: "error", message: { text: `${o.errorType}: ${o.message}` }, descriptor: { id: o.errorType } }],
        }],
        artifacts,
        results: [],
        properties: { endpoint: o.info.endpoint, spec_id: o.info.specId },
      }],
    };
  }
  const url = reportUrlOf(o.report);
  /** @type {Map<string, number>} */
  const ruleIndex = new Map();
  const results = o.tests.map((t) => {
    const id = qualifiedId(t);
    if (!ruleIndex.has(id)) {
      ruleIndex.set(id, driver.rules.length);
      driver.rules.push({
        id,
        name: t.id,
        shortDescription: { text: t.name || t.id },
        ...(t.expected_text ? { fullDescription: { text: `${t.name || t.id}: expected ${t.expected_text}` } } : {}),
        ...(t.group ? { properties: { group: t.group } } : {}),
      });
    }
    return {
      ruleId: id,
      ruleIndex: ruleIndex.get(id),
      kind: t.result === "failed" ? "fail" : t.result === "passed" ? "pass" : "review",
      level: t.result === "failed" ? "error" : "none",
      message: { text: reasonOf(t) },
      locations: location,
      ...(url ? { hostedViewerUri: url } : {}),
      properties: {
        result: t.result,
        ...(t.expected !== undefined ? { expected: t.expected } : {}),
        ...(t.actual !== undefined ? { actual: t.actual } : {}),
        unit: t.unit,
        operator: t.operator,
        expected_text: t.expected_text,
      },
    };
  });
  return {
    $schema: "https://json.schemastore.org/sarif-2.1.0.json",
    version: "2.1.0",
    runs: [{
      tool: { driver },
      invocations: [{ executionSuccessful: true }],
      artifacts,
      results,
      properties: {
        report_url: url,
        job_id: o.report.job_id,
        endpoint: o.info.endpoint,
        spec_id: o.info.specId,
        passed: o.report.scan_results?.passed,
        failed: o.report.scan_results?.failed,
      },
    }],
  };
}

/** The API's messages start with the test's name, which the line already shows: "SSL — no, but expected …". */
function withoutName(/** @type {{ name: string }} */ t, /** @type {string} */ reason) {
  return reason.startsWith(`${t.name}: `) ? reason.slice(t.name.length + 2) : reason;
}
