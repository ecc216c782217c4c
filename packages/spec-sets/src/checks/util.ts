import type { FileInfo, TagReport, VastReport, VastXml } from "@cva/contracts";
import type { MediaFileInput, Measurement } from "../types.ts";

/**
 * 1 KB = 1000 bytes. The IAB 2017 table writes "kB" (the SI prefix), and the decimal reading is the stricter one, so
 * a creative that passes here passes under either reading. Chrome's Heavy Ad limit is binary (4 × 1024 × 1024) and is
 * therefore expressed in bytes, not KB.
 */
export const BYTES_PER_KB = 1000;

export function bool(value: boolean): number {
  return value ? 1 : 0;
}

/** The report carries -1 for "never happened before the time-out"; tests read that as unbounded. */
export function msOrUnbounded(ms: bigint): number {
  const n = Number(ms);
  return n < 0 ? Number.POSITIVE_INFINITY : n;
}

export function loadSize(report: TagReport) {
  const ls = report.network?.loadSize;
  // A report without network data was not measured; that is an error of the scan, not a pass or a fail.
  if (!ls) throw new Error("the report has no network.load_size");
  return ls;
}

/** VPAID/Flash/JavaScript "media files" are code a player runs, not audio/video the media tests apply to. */
export function isInteractive(mediaFile: MediaFileInput["mediaFile"]): boolean {
  const attrs = mediaFile.attributes;
  const type = (attrs?.type ?? "").toLowerCase();
  return (attrs?.apiFramework ?? "").toUpperCase().startsWith("VPAID") || type.includes("javascript") || type.includes("flash");
}

/**
 * The probed file info of a media file, or null when the media tests do not apply: interactive code (VPAID), or a
 * file that is not playable media at all (a 404, a playlist, HTML) — the `playable` and `http_code` tests fail for
 * that file and say why, and judging its bit rate or loudness as well would only repeat it. Throws (→ "not
 * evaluated") when the file was never probed: the scan failed, not the file.
 */
export function fileInfo(input: MediaFileInput): FileInfo | null {
  if (isInteractive(input.mediaFile)) return null;
  const probe = input.mediaFile.probe;
  if (!probe) throw new Error("the media file was not probed");
  if (probe.notProbed) throw new Error(probe.error || "the media file was not probed");
  if (probe.error) return null;
  if (!probe.fileInfo) throw new Error("the media file has no file_info");
  return probe.fileInfo;
}

/**
 * Throws "not measured" with the prober's reason when a field the test needs is listed in the probe's not_measured
 * (its value in the report is a placeholder, never to be judged).
 */
export function requireMeasured(input: MediaFileInput, field: string, what: string): void {
  const probe = input.mediaFile.probe;
  if (!probe?.notMeasured.includes(field)) return;
  throw new Error(`${what} was not measured${probe.analysisError ? `: ${probe.analysisError}` : ""}`);
}

/** Parses a VAST duration "HH:MM:SS" or "HH:MM:SS.mmm" into seconds. */
export function parseVastDuration(text: string): number {
  const m = /^\s*(\d{1,2}):(\d{2}):(\d{2}(?:\.\d+)?)\s*$/.exec(text);
  if (!m) throw new Error(`declared duration "${text}" is not HH:MM:SS(.mmm)`);
  return Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3]);
}

export function vastXml(report: VastReport): VastXml {
  if (!report.xml) throw new Error("the report has no xml data");
  return report.xml;
}

/**
 * A lint group's test: the number of `error` findings of the group over the chain's documents, the message citing
 * the first ones (rule, spec section, hop, line, path) and counting the warnings. Not applicable (left out) when no
 * document of the chain was parsed and linted — the tests of the document itself say why.
 */
export function lintGroup(report: VastReport, group: string): Measurement {
  if (!report.wrapperChain.some((h) => h.lintRules > 0)) return null;
  const findings = report.lint.filter((f) => f.group === group);
  const errors = findings.filter((f) => f.severity === "error");
  const warnings = findings.filter((f) => f.severity === "warning").length;
  const cite = (f: (typeof findings)[number]) => `hop ${f.hop} line ${f.line} ${f.path}: ${f.message} [${f.rule}; ${f.spec}]`;
  const also = warnings > 0 ? ` ${warnings} warning${warnings > 1 ? "s" : ""} in the report's lint.` : "";
  if (errors.length === 0) return { value: 0, detail: `no error finding.${also}` };
  const shown = errors.slice(0, 3).map(cite).join("; ");
  return { value: errors.length, detail: `${shown}${errors.length > 3 ? `; and ${errors.length - 3} more in the report's lint` : ""}.${also}` };
}

/** A VAST report field listed in the report's not_measured (no answer to the VAST request) is not evaluated. */
export function requireMeasuredField(report: VastReport, field: string): void {
  if (!report.notMeasured.includes(field)) return;
  throw new Error(`${field} was not measured: the VAST URL gave no answer${report.errors[0] ? ` (${report.errors[0]})` : ""}`);
}
