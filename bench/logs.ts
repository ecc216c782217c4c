// Reads the stack's own JSON log lines (the harness keeps every process's output in `stack.logs`, prefixed with
// "[<process>] "): the scanners log where each scan's time went (`phase_ms`), which is what the bench reports.
import { median } from "./table.ts";

export type LogRecord = Record<string, any>;

/** Records of `proc` with message `msg`, from line `from` on (take `stack.logs.length` before a measurement). */
export function records(logs: string[], from: number, proc: string, msg: string): LogRecord[] {
  const out: LogRecord[] = [];
  for (const line of logs.slice(from)) {
    if (!line.startsWith(`[${proc}`)) continue;
    const at = line.indexOf("{");
    if (at < 0) continue;
    try {
      const r = JSON.parse(line.slice(at)) as LogRecord;
      if (r.msg === msg) out.push(r);
    } catch {
      // not a JSON line (a stack trace, a child's own print)
    }
  }
  return out;
}

/** Median of each `phase_ms` key over the records (a key missing in a record counts as absent, not 0). */
export function phaseMedians(recs: LogRecord[], field = "phase_ms"): Record<string, number> {
  const keys = new Set(recs.flatMap((r) => Object.keys(r[field] ?? {})));
  const out: Record<string, number> = {};
  for (const k of keys) {
    const xs = recs.map((r) => r[field]?.[k]).filter((v): v is number => typeof v === "number");
    if (xs.length) out[k] = median(xs);
  }
  return out;
}

export const TAG_SCANNED = ["tag-scanner", "tag scanned"] as const;
export const MEDIA_PROBED = ["media-prober", "media probed"] as const;
export const EDGE_SCAN_DONE = ["edge", "scan done"] as const;
