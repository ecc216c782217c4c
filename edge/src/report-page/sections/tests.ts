import { withUnit } from "../format.ts";
import { badge, esc, finite, isObj, obj, table, text, type J } from "../html.ts";

// The verdict header and the table of guideline tests (scan_results). Read by shape, not by report kind: tests keyed
// by id (ad tags, zips) or grouped first (VAST: xml, creative_X_mediafile_Y), so a new kind of report renders too.

export interface TestRow {
  group: string;
  id: string;
  name: string;
  result: "passed" | "failed" | "error";
  measured: string;
  expected: string;
  message: string;
  unit: string;
  /** The threshold when it is one number (e.g. 15000 with unit ms). */
  limit?: number;
}

const ORDER = { failed: 0, error: 1, passed: 2 } as const;

function resultOf(v: unknown): TestRow["result"] {
  return v === "passed" || v === "failed" ? v : "error";
}

function measured(t: J): string {
  const actual = finite(t.actual);
  if (actual === undefined) return "not measured";
  if (t.data_type === "bool") return actual ? "yes" : "no";
  return withUnit(actual, text(t.unit));
}

function expected(t: J): string {
  if (t.expected_text) return text(t.expected_text);
  const unit = text(t.unit);
  if (typeof t.expected === "number") {
    if (t.data_type === "bool") return t.expected ? "yes" : "no";
    return `${text(t.operator)} ${withUnit(t.expected, unit)}`.trim();
  }
  const range = /^(-?[\d.]+)#(-?[\d.]+)$/.exec(text(t.expected));
  if (range) return `between ${withUnit(Number(range[1]), unit)} and ${withUnit(Number(range[2]), unit)}`;
  return text(t.expected);
}

function row(group: string, id: string, t: J): TestRow {
  const name = text(t.name) || id;
  const result = resultOf(t.result);
  const m = measured(t);
  return {
    group, id, name, result, measured: m, expected: expected(t),
    // Every result carries a message saying why (the spec sets write it); an older report may not.
    message: text(t.message) || (result === "error" ? "the test could not be evaluated" : `${name}: ${m}`),
    unit: text(t.unit),
    limit: finite(t.expected),
  };
}

export function testRows(report: J): TestRow[] {
  const tests = obj(obj(report.scan_results).tests);
  const rows: TestRow[] = [];
  for (const [key, v] of Object.entries(tests)) {
    if (!isObj(v)) continue;
    if ("result" in v) rows.push(row("", key, v));
    else for (const [id, t] of Object.entries(v)) if (isObj(t)) rows.push(row(key, id, t));
  }
  // Failed first, then those that could not be evaluated, then passed; the report's order within each.
  return rows.map((r, i) => ({ r, i })).sort((a, b) => ORDER[a.r.result] - ORDER[b.r.result] || a.i - b.i).map((x) => x.r);
}

/** "creative_0_mediafile_1" → "Creative 1, media file 2"; "xml" → "VAST document". */
export function groupLabel(group: string): string {
  if (group === "") return "";
  if (group === "xml") return "VAST document";
  const parts = group.split("_");
  const out: string[] = [];
  for (let i = 0; i < parts.length; i++) {
    const word = parts[i]!;
    const n = /^\d+$/.test(parts[i + 1] ?? "") ? Number(parts[++i]) + 1 : undefined;
    const name = word === "mediafile" ? "media file" : word === "nonlinear" ? "overlay" : word;
    out.push(n === undefined ? name : `${name} ${n}`);
  }
  const s = out.join(", ");
  return s[0]!.toUpperCase() + s.slice(1);
}

export interface Counts {
  passed: number;
  failed: number;
  errors: number;
  hasTests: boolean;
}

export function counts(report: J, rows: TestRow[]): Counts {
  const sr = report.scan_results;
  // The counts the API returned are authoritative; the rows add the "could not be evaluated" ones.
  const n = (v: unknown, fallback: number) => finite(v) ?? fallback;
  const passed = n(obj(sr).passed, rows.filter((r) => r.result === "passed").length);
  const failed = n(obj(sr).failed, rows.filter((r) => r.result === "failed").length);
  return {
    passed, failed,
    errors: rows.filter((r) => r.result === "error").length,
    // A spec set with no test for this kind is no verdict either way.
    hasTests: isObj(sr) && (rows.length > 0 || passed + failed > 0),
  };
}

function findings(rows: TestRow[]): string {
  return `<ol class="findings">${rows
    .map((r) => {
      const where = r.group ? ` <span class="where">${esc(groupLabel(r.group))}</span>` : "";
      // The spec sets' messages start with the test's name ("SSL: no, but expected …"); it is already the heading.
      const why = reason(r);
      return `<li>${badge(r.result)} <strong>${esc(r.name)}</strong>${where}<p>${esc(why)}</p></li>`;
    })
    .join("")}</ol>`;
}

/**
 * The verdict: failed or passed, the counts, then each failed test with its reason in plain words, then those that
 * could not be evaluated. `extra` is HTML shown under the counts (the measurement's confidence, when reported).
 */
export function renderVerdict(c: Counts, rows: TestRow[], extra: string): string {
  if (!c.hasTests) {
    return `<section class="verdict v-none" aria-labelledby="h-verdict"><h2 id="h-verdict">No guideline tests</h2><p>No guideline test was run on this report; the measurements follow.</p>${extra}</section>`;
  }
  const state = c.failed > 0 ? "failed" : c.errors > 0 ? "incomplete" : "passed";
  const word = { failed: "Failed", incomplete: "Passed, not every test evaluated", passed: "Passed" }[state];
  const chips = [
    `<span class="badge r-failed">${esc(c.failed)} failed</span>`,
    `<span class="badge r-passed">${esc(c.passed)} passed</span>`,
    c.errors ? `<span class="badge r-error">${esc(c.errors)} not evaluated</span>` : "",
  ].join(" ");
  const failed = rows.filter((r) => r.result === "failed");
  const errors = rows.filter((r) => r.result === "error");
  return `<section class="verdict v-${state}" aria-labelledby="h-verdict">
<h2 id="h-verdict">${esc(word)}</h2><p class="counts">${chips}</p>${extra}
${failed.length ? `<h3>What failed</h3>${findings(failed)}` : ""}
${errors.length ? `<h3>Could not be evaluated</h3>${findings(errors)}` : ""}
</section>`;
}

/** A test's message without its name in front ("SSL: no, but expected …" → "no, but expected …"): the name is beside it. */
const reason = (r: TestRow): string => (r.message.startsWith(`${r.name}: `) ? r.message.slice(r.name.length + 2) : r.message);

export function renderTestsTable(rows: TestRow[]): string {
  if (rows.length === 0) return "";
  const grouped = rows.some((r) => r.group);
  const cols = [
    { head: "Result", kind: "nowrap" as const },
    ...(grouped ? [{ head: "Where" }] : []),
    { head: "Test" },
    { head: "Measured", kind: "num" as const },
    { head: "Expected" },
    { head: "Why" },
  ];
  return table(
    cols,
    rows.map((r) => [
      badge(r.result),
      ...(grouped ? [esc(groupLabel(r.group))] : []),
      `${esc(r.name)}<br><code class="id">${esc(r.id)}</code>`,
      esc(r.measured),
      esc(r.expected),
      esc(reason(r)),
    ]),
    { className: "tests" },
  );
}
