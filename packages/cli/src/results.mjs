// @ts-check
// The test results of a v3 report as one flat list. `scan_results.tests` maps a test id to its result for ad tags and
// zips, and a group (`xml`, `creative_0_mediafile_0`, …) to such a map for VAST; newer kinds may nest or list them.
// Anything with a string `result` is a test; every other object or array is walked as a group, so a new grouping in
// the API needs no change here.

/**
 * @typedef {object} TestCase
 * @property {string} group  "" for ungrouped tests
 * @property {string} id     the test id (the map key, or the result's own `test`)
 * @property {string} name
 * @property {"passed" | "failed" | "error"} result
 * @property {string} message  why it passed, failed or could not be evaluated
 * @property {string} expected_text
 * @property {number | undefined} actual
 * @property {string | number | undefined} expected
 * @property {string} unit
 * @property {string} operator
 */

const MAX_DEPTH = 4;

/** @param {unknown} v @returns {v is Record<string, unknown>} */
const isObject = (v) => typeof v === "object" && v !== null && !Array.isArray(v);
/** @param {unknown} v */
const str = (v) => (typeof v === "string" ? v : v === undefined || v === null ? "" : String(v));

/**
 * @param {unknown} tests `scan_results.tests`
 * @returns {TestCase[]} failed first, then errors, then passed; in report order within each
 */
export function flattenTests(tests) {
  /** @type {TestCase[]} */
  const out = [];
  /** @param {unknown} node @param {string[]} path @param {number} depth */
  const walk = (node, path, depth) => {
    if (depth > MAX_DEPTH) return;
    const entries = Array.isArray(node) ? node.map((v, i) => /** @type {[string, unknown]} */ ([String(i), v])) : isObject(node) ? Object.entries(node) : [];
    for (const [key, value] of entries) {
      if (isObject(value) && typeof value.result === "string") {
        const r = value.result === "passed" || value.result === "failed" ? value.result : "error";
        out.push({
          group: path.join("."),
          id: str(value.test) || key,
          name: str(value.name) || key,
          result: r,
          message: str(value.message),
          expected_text: str(value.expected_text),
          actual: typeof value.actual === "number" ? value.actual : undefined,
          expected: typeof value.expected === "number" || typeof value.expected === "string" ? value.expected : undefined,
          unit: str(value.unit),
          operator: str(value.operator),
        });
      } else if (isObject(value) || Array.isArray(value)) {
        walk(value, [...path, key], depth + 1);
      }
    }
  };
  walk(tests, [], 0);
  const rank = { failed: 0, error: 1, passed: 2 };
  return out.map((t, i) => ({ t, i })).sort((a, b) => rank[a.t.result] - rank[b.t.result] || a.i - b.i).map(({ t }) => t);
}

/** A test's reason in plain words: its message, else what was expected. */
export function reasonOf(/** @type {TestCase} */ t) {
  if (t.message) return t.message;
  const actual = t.actual === undefined ? "not measured" : `${t.actual}${t.unit ? ` ${t.unit}` : ""}`;
  return t.expected_text ? `${actual}; expected ${t.expected_text}` : actual;
}

/** The id a test is known by across groups: `xml/wrapper_chain`, or just `ssl` for ungrouped ones. */
export const qualifiedId = (/** @type {TestCase} */ t) => (t.group ? `${t.group}/${t.id}` : t.id);

/**
 * @param {TestCase[]} tests
 * @returns {0 | 1} 0 when every test passed; 1 when one failed or could not be evaluated (not passed either)
 */
export function exitCodeOf(tests) {
  return tests.every((t) => t.result === "passed") ? 0 : 1;
}
