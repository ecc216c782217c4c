// Where a static v3 tag scan's measuring steps spend their time, thread by thread (issue 22 §1: find the cost before
// removing it): the bench's static tag with capture_landing_page (as the edge sends it) scanned on one browser, a
// Chromium trace (Tracing on the browser target: every process) around N scans, and each scan's steps (phase_ms /
// steps_ms from its log line) laid on the trace's clock. Per step: its wall ms, and the busy ms in it of the scan's
// renderer main thread, the browser process's main and IO threads, the GPU/viz threads, the network service; then the
// renderer main thread's largest events per step, and the browser main thread's tasks by where they were posted.
// Trace time is CLOCK_MONOTONIC, as this process's hrtime. The steps are placed from the log line's ms back from the
// scan's end, so they are as exact as the log's ms (±1 ms a step).
// Usage: npx tsx services/tag-scanner/scripts/trace-tag.ts [scans]
import { createMemoryArtifactSink, createOutboundPolicy } from "@cva/platform";
import * as S from "../src/index.ts";
import { keptLog, staticAdJob, type LogLine } from "./static-ad-kit.ts";

const n = Number(process.argv[2] ?? 4);
const logs: LogLine[] = [];
const pool = S.createBrowserPool({ browsers: 1, slots: 4 });
const scanner = S.createTagScanner({ pool, artifacts: createMemoryArtifactSink(), location: "usa", policy: createOutboundPolicy([]), logger: keptLog(logs), consentStates: true });
const job = () => { const j = staticAdJob(); if (j.input.case === "tag") j.input.value.captureLandingPage = true; return j; };
for (let i = 0; i < 3; i++) await scanner.scan(job());
const lease = await pool.acquire();
const browser = lease.browser;
lease.release();
const s = await browser.target().createCDPSession();
const cats = ["toplevel", "devtools.timeline", "v8", "blink", "disabled-by-default-devtools.timeline", "cc", "viz", "gpu", "navigation", "loading"];
await s.send("Tracing.start", { transferMode: "ReturnAsStream", traceConfig: { includedCategories: cats, recordMode: "recordAsMuchAsPossible" } });
const mono = () => Number(process.hrtime.bigint() / 1000n);
const scans: Array<{ end: number; line: LogLine }> = [];
for (let i = 0; i < n; i++) {
  const f = logs.length;
  await scanner.scan(job());
  const end = mono();
  const line = logs.slice(f).find((x) => x.msg === "tag scanned")!;
  scans.push({ end, line });
  await new Promise((ok) => setTimeout(ok, 400));
}
const done = new Promise<{ stream: string }>((ok) => s.once("Tracing.tracingComplete", (e) => ok(e as { stream: string })));
await s.send("Tracing.end");
const { stream } = await done;
let text = "";
for (;;) {
  const r = await s.send("IO.read", { handle: stream, size: 1 << 20 });
  text += r.base64Encoded ? Buffer.from(r.data, "base64").toString() : r.data;
  if (r.eof) break;
}
const parsed = JSON.parse(text) as { traceEvents: TraceEvent[] } | TraceEvent[];
const events = Array.isArray(parsed) ? parsed : parsed.traceEvents;
type TraceEvent = { ph: string; name: string; cat: string; pid: number; tid: number; ts: number; dur?: number; tdur?: number; args?: Record<string, unknown> };
const threadName = new Map<string, string>();
const procName = new Map<number, string>();
for (const e of events) {
  if (e.ph === "M" && e.name === "thread_name") threadName.set(`${e.pid}:${e.tid}`, String((e.args as { name: string }).name));
  if (e.ph === "M" && e.name === "process_name") procName.set(e.pid, String((e.args as { name: string }).name));
}
// Top-level tasks per thread (toplevel RunTask-like events): a thread's busy time.
const tasks = new Map<string, Array<{ ts: number; end: number; cpu: number }>>();
const isTask = (e: TraceEvent) => e.ph === "X" && e.cat.includes("toplevel") && /RunTask|ThreadControllerImpl::RunTask|ThreadPool_RunTask/.test(e.name);
for (const e of events) if (isTask(e)) {
  const k = `${e.pid}:${e.tid}`;
  (tasks.get(k) ?? tasks.set(k, []).get(k)!).push({ ts: e.ts, end: e.ts + (e.dur ?? 0), cpu: e.tdur ?? e.dur ?? 0 });
}
const busy = (k: string, a: number, b: number) => {
  let t = 0;
  for (const x of tasks.get(k) ?? []) t += Math.max(0, Math.min(b, x.end) - Math.max(a, x.ts)) * (x.end > x.ts ? x.cpu / (x.end - x.ts) : 0);
  return t / 1000;
};
const threadsOf = (pred: (proc: string, thread: string) => boolean) => [...tasks.keys()].filter((k) => pred(procName.get(Number(k.split(":")[0])) ?? "", threadName.get(k) ?? ""));
const browserMain = threadsOf((p, t) => p === "Browser" && t === "CrBrowserMain");
const browserIo = threadsOf((p, t) => p === "Browser" && t === "Chrome_IOThread");
const gpu = threadsOf((p) => p === "GPU Process");
const net = threadsOf((p) => /Network/i.test(p));
const rendererMains = threadsOf((p, t) => p === "Renderer" && t === "CrRendererMain");
for (const { end, line } of scans) {
  const ph = line.phase_ms as Record<string, number>, st = line.steps_ms as Record<string, number>;
  const t0 = end - (line.ms as number) * 1000;
  // The steps in order on the scan's clock (storage and sensor_off run beside others: shown as their own windows).
  const spans: Array<[string, number, number]> = [];
  let t = t0;
  const push = (name: string, ms: number) => { spans.push([name, t, t + ms * 1000]); t += ms * 1000; };
  push("setup", ph.setup!); push("render", ph.render!);
  const mStart = t;
  for (const k of ["answer", "cpu_sample", "layout", "screenshot"]) push(k, st[k] ?? 0);
  t = mStart + ph.measure! * 1000;
  spans.push(["(storage ‖)", mStart + ((st.answer ?? 0) + (st.cpu_sample ?? 0)) * 1000, mStart + ((st.answer ?? 0) + (st.cpu_sample ?? 0) + (st.storage ?? 0)) * 1000]);
  const aStart = t;
  for (const k of ["axe_top", "axe_checks", "a11y_probe", "narrow", "narrow_layout", "width_back"]) push(k, st[k] ?? 0);
  t = aStart + ph.accessibility! * 1000;
  push("landing", ph.landing!);
  spans.push(["(after, to log)", t, end]);
  // The scan's renderer: the one busiest during its render.
  const [rs, re] = [spans[1]![1], spans[1]![2]];
  const renderer = rendererMains.map((k) => [k, busy(k, rs, re)] as const).sort((a, b) => b[1] - a[1])[0]?.[0];
  console.log(`\nscan ${Math.round(line.ms as number)} ms; phase_ms ${JSON.stringify(ph)}`);
  console.log("step            wall | renderer-main browser-main browser-io gpu net (busy ms, thread CPU)");
  const sum = (ks: string[], a: number, b: number) => ks.reduce((x, k) => x + busy(k, a, b), 0);
  for (const [name, a, b] of spans) {
    console.log(`${name.padEnd(15)} ${String(Math.round((b - a) / 1000)).padStart(4)} | ${[renderer ? busy(renderer, a, b) : 0, sum(browserMain, a, b), sum(browserIo, a, b), sum(gpu, a, b), sum(net, a, b)].map((x) => x.toFixed(0).padStart(6)).join(" ")}`);
  }
  if (!renderer) continue;
  const [rp, rt] = renderer.split(":").map(Number);
  // Largest renderer-main events (any category, complete events), per step, by wall dur.
  for (const [name, a, b] of spans) {
    if (!["render", "cpu_sample", "layout", "screenshot", "axe_top", "axe_checks", "narrow", "width_back", "landing", "(storage ‖)"].includes(name)) continue;
    const top = new Map<string, number>();
    for (const e of events) {
      if (e.pid !== rp || e.tid !== rt || e.ph !== "X" || !e.dur || e.ts < a || e.ts > b) continue;
      if (isTask(e)) continue;
      top.set(e.name, (top.get(e.name) ?? 0) + e.dur / 1000);
    }
    console.log(`  ${name}: ` + [...top].sort((x, y) => y[1] - x[1]).slice(0, 8).map(([k, v]) => `${k} ${v.toFixed(1)}`).join(", "));
    // The browser process's main thread in the same step: its tasks by where they were posted from.
    const bm = new Map<string, number>();
    for (const e of events) {
      if (!browserMain.includes(`${e.pid}:${e.tid}`) || e.ph !== "X" || !e.dur || e.ts < a || e.ts > b || !isTask(e)) continue;
      const src = String((e.args as { src_func?: string; src_file?: string } | undefined)?.src_func ?? (e.args as { src?: string } | undefined)?.src ?? JSON.stringify(e.args ?? {}).slice(0, 80));
      bm.set(src, (bm.get(src) ?? 0) + (e.tdur ?? e.dur) / 1000);
    }
    console.log(`    browser-main: ` + [...bm].sort((x, y) => y[1] - x[1]).slice(0, 6).map(([k, v]) => `${k} ${v.toFixed(1)}`).join(", "));
  }
}
await pool.close();
process.exit(0);
