/**
 * JavaScript source with every character outside 7-bit ASCII written as its `\uXXXX` escape: the same program where
 * those characters stand in string literals, identifiers or comments (test/ascii-source.test.ts checks the pinned
 * axe-core bundle parses to the same program either way).
 *
 * Why (issue 22): a Runtime.evaluate expression goes to Chromium's browser process as JSON and on to the renderer as
 * CBOR, and Chromium's converter (crdtp) writes a string holding any character ≥ 0x7F as UTF-16 — two bytes a
 * character — where an ASCII one goes as 8-bit; the renderer's V8 then holds and scans a two-byte source. axe-core's
 * reduced bundle (569 KB) has 17 such characters (©, –, …, U+FFFD and ® in strings, ε as a property name). Measured
 * (branch tagperf5, a fresh renderer with the Debugger on as on a scan tab, 12 pairs alternating, load 14): the bundle's
 * bytes alone 47 → 29 ms CPU (browser process 27 → 15 ms); axe's whole load 101 → 96 ms CPU p50 (browser 26 → 19,
 * renderer 68 → 63), wall 312 → 248 ms.
 */
export function asciiSource(source: string): string {
  // An astral character would need `\u{…}`, which a regular expression without the u flag reads otherwise.
  if (/[\ud800-\udfff]/.test(source)) throw new Error("the source has characters outside the BMP: not escaped");
  return source.replace(/[^\x00-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
