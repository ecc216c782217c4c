// What the scanner-level measuring scripts share (ab-tag.ts here, bench/tag-cpu-breakdown.ts): the bench's static
// 300x250 v3 tag as a scan job, and a logger that keeps every line, so a script reads the scan's phase_ms / steps_ms.
import { create } from "@bufbuild/protobuf";
import { ScanJobSchema, ScanKind } from "@cva/contracts";

export const STATIC_AD = `<div style="width:300px;height:250px;background:linear-gradient(#06c,#0a4);color:#fff;font:24px sans-serif">Bench ad</div>`;

export const staticAdJob = () => create(ScanJobSchema, { jobId: `m-${Math.random().toString(36).slice(2)}`, kind: ScanKind.TAG, apiVersion: "v3",
  input: { case: "tag", value: { creative: { case: "html", value: STATIC_AD } } } });

/** The bench's zip: the same creative as a bundle framed at its ad.size (what the zip-analyzer sends; v2). */
export const zipAdJob = () => create(ScanJobSchema, { jobId: `z-${Math.random().toString(36).slice(2)}`, kind: ScanKind.TAG, apiVersion: "v2",
  input: { case: "tag", value: { creative: { case: "bundle", value: {
    entry: "index.html", frameSize: { width: 300, height: 250 },
    files: [{ path: "index.html", data: new TextEncoder().encode(`<!doctype html><meta name="ad.size" content="width=300,height=250"><script>var clickTag="https://example.com"</script><body style="margin:0">${STATIC_AD}</body>`) }],
  } } } } });

export type Log = { info(o: object, msg?: string): void; warn(o: object, msg?: string): void; error(o: object, msg?: string): void; child(b: object): Log };
export type LogLine = Record<string, unknown> & { msg?: string };

/** A logger whose every line (with its bindings) lands in `lines`. */
export function keptLog(lines: LogLine[], bindings: object = {}): Log {
  const push = (o: object, msg?: string) => { lines.push({ ...bindings, ...o, msg }); };
  return { info: push, warn: push, error: push, child: (x: object) => keptLog(lines, { ...bindings, ...x }) };
}
