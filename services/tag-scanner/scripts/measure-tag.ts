// Where a static 300x250 tag scan's time goes, scanner level (no NATS, no edge): the bench's creative scanned N times
// on one browser, the scan log's phase_ms and the render watch's own figures (how it ended, its probes, the last
// pixel change and the first paint, ms after render start) as medians. Find the cost before removing it (issue 22).
// Usage: npx tsx services/tag-scanner/scripts/measure-tag.ts [rounds] [zip]
import { create } from "@bufbuild/protobuf";
import { ScanJobSchema, ScanKind } from "@cva/contracts";
import { createMemoryArtifactSink, createOutboundPolicy } from "@cva/platform";
import { readdirSync, readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { createBrowserPool, createTagScanner } from "../src/index.ts";

const rounds = Number(process.argv[2] ?? 10);
/** `clients N SECONDS`: N closed-loop clients for that long on 1 browser x 4 slots (memory: the bench's capacity rows). */
const clients = process.argv[3] === "clients" ? Number(process.argv[4] ?? 4) : 0;
const seconds = Number(process.argv[5] ?? 60);
const AD = `<div style="width:300px;height:250px;background:linear-gradient(#06c,#0a4);color:#fff;font:24px sans-serif">Bench ad</div>`;
const job = () => create(ScanJobSchema, {
  jobId: `m-${Math.random().toString(36).slice(2)}`, kind: ScanKind.TAG, apiVersion: "v3",
  input: { case: "tag", value: { creative: { case: "html", value: AD } } },
});
/** The bench's zip: the same creative as a bundle framed at its ad.size (what the zip-analyzer sends). */
const zipJob = () => create(ScanJobSchema, {
  jobId: `z-${Math.random().toString(36).slice(2)}`, kind: ScanKind.TAG, apiVersion: "v2",
  input: { case: "tag", value: { creative: { case: "bundle", value: {
    entry: "index.html", frameSize: { width: 300, height: 250 },
    files: [{ path: "index.html", data: new TextEncoder().encode(`<!doctype html><meta name="ad.size" content="width=300,height=250"><script>var clickTag="https://example.com"</script><body style="margin:0">${AD}</body>`) }],
  } } } },
});
const logs: Array<Record<string, unknown> & { msg?: string }> = [];
type Log = { info(o: object, msg?: string): void; warn(o: object, msg?: string): void; error(o: object, msg?: string): void; child(b: object): Log };
const makeLogger = (bindings: object): Log => {
  const push = (o: object, msg?: string) => { logs.push({ ...bindings, ...o, msg }); };
  return { info: push, warn: push, error: push, child: (b) => makeLogger({ ...bindings, ...b }) };
};
const logger = makeLogger({});
const pool = createBrowserPool({ browsers: 1, slots: 4 });
// The consent states as the service runs them (TAG_CONSENT_STATES, default on: main.ts): a v3 scan's page has the
// consent sensor, whose Debugger is on through the render.
const scanner = createTagScanner({ pool, artifacts: createMemoryArtifactSink(), location: "usa", policy: createOutboundPolicy([]), logger, consentStates: (process.env.TAG_CONSENT_STATES ?? "1") === "1" });
/** CPU seconds (user + sys) of this process and every process it started (Chromium's), from /proc. */
function cpuSeconds(): number {
  const kids = new Map<number, number[]>();
  const ticks = new Map<number, number>();
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, "utf8");
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const pid = Number(d), ppid = Number(f[1]);
      kids.set(ppid, [...(kids.get(ppid) ?? []), pid]);
      // utime + stime, and cutime + cstime: a process that exited (a closed context's renderer) is counted in its
      // reaper's (Chromium's zygote, the browser), which is among the descendants.
      ticks.set(pid, Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]));
    } catch { /* gone */ }
  }
  let sum = 0;
  const walk = (p: number) => { for (const k of kids.get(p) ?? []) { sum += ticks.get(k) ?? 0; walk(k); } };
  walk(process.pid);
  const own = process.cpuUsage();
  return sum / 100 + (own.user + own.system) / 1e6;
}
const med = (xs: number[]) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]! : NaN);
const loads: number[] = [];
const ends = new Map<string, number>();
try {
  await scanner.scan(job());
  await scanner.scan(job());
  if (clients > 0) {
    const until = Date.now() + seconds * 1000;
    let done = 0, failed = 0;
    const sampler = setInterval(() => loads.push(loadavg()[0]!), 2_000);
    await Promise.all(Array.from({ length: clients }, async () => {
      while (Date.now() < until) await scanner.scan(job()).then(() => done++, () => failed++);
    }));
    clearInterval(sampler);
    console.log(`${clients} clients, ${seconds} s: ${(done / seconds * 60).toFixed(1)} scans/min (${failed} failed); load median ${med(loads).toFixed(1)}`);
    const sc = logs.filter((l) => l.msg === "tag scanned");
    const ph = (k: string) => Math.round(med(sc.map((l) => (l.phase_ms as Record<string, number>)[k]!)));
    console.log(`  scan log ms p50 ${Math.round(med(sc.map((l) => l.ms as number)))}; phase_ms p50 setup ${ph("setup")} / render ${ph("render")} / measure ${ph("measure")} / accessibility ${ph("accessibility")} / landing ${ph("landing")}`);
    console.log(`  scanner process RSS ${Math.round(process.memoryUsage().rss / 1048576)} MB`);
    process.exit(0);
  }
  if (process.argv[3] === "zip") {
    const t: number[] = [], z: number[] = [];
    const zf = logs.length;
    for (let i = 0; i < rounds; i++) {
      let a = performance.now();
      await scanner.scan(zipJob());
      z.push(performance.now() - a);
      a = performance.now();
      await scanner.scan(job());
      t.push(performance.now() - a);
    }
    const sc = logs.slice(zf).filter((l) => l.msg === "tag scanned");
    const ph = (id: string, k: string) => Math.round(med(sc.filter((l) => String(l.job_id ?? "").startsWith(id)).map((l) => (l.phase_ms as Record<string, number>)[k]!)));
    console.log(`zip ${Math.round(med(z))} ms vs tag ${Math.round(med(t))} ms p50 (${rounds} each, alternating), load median ${loadavg()[0]!.toFixed(1)}`);
    for (const k of ["setup", "render", "measure", "accessibility", "landing"]) console.log(`  ${k}: zip ${ph("z-", k)} / tag ${ph("m-", k)}`);
    process.exit(0);
  }
  if (process.env.MEASURE_AB) {
    // A/B of a switch read per scan (an env variable the code under test reads), alternating.
    const name = process.env.MEASURE_AB;
    const r: Record<string, number[]> = { on: [], off: [] };
    const cpu: Record<string, number[]> = { on: [], off: [] };
    const ph: Record<string, Array<Record<string, number>>> = { on: [], off: [] };
    for (let i = 0; i < rounds; i++) {
      for (const k of ["off", "on"] as const) {
        if (k === "on") process.env[name] = "1"; else delete process.env[name];
        const f = logs.length, a = performance.now(), c = cpuSeconds();
        await scanner.scan(job());
        r[k]!.push(performance.now() - a);
        // The scan's CPU: until its page's context is closed and the next one prepared (both in the scan's wake).
        await new Promise((ok) => setTimeout(ok, 1_500));
        cpu[k]!.push((cpuSeconds() - c) * 1000);
        ph[k]!.push(logs.slice(f).find((l) => l.msg === "tag scanned")?.phase_ms as Record<string, number>);
      }
    }
    for (const k of ["off", "on"]) {
      const p = (x: string) => Math.round(med(ph[k]!.map((o) => o[x]!)));
      console.log(`${name}=${k === "on" ? 1 : "unset"}: p50 ${Math.round(med(r[k]!))} ms, CPU p50 ${Math.round(med(cpu[k]!))} ms (node + Chromium, incl. 1.5 s after); render ${p("render")} / measure ${p("measure")} / accessibility ${p("accessibility")} / landing ${p("landing")}`);
    }
    console.log(`load ${loadavg()[0]!.toFixed(1)}`);
    process.exit(0);
  }
  const from = logs.length;
  const total: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const t = performance.now();
    await scanner.scan(job());
    total.push(performance.now() - t);
    loads.push(loadavg()[0]!);
  }
  const scanned = logs.slice(from).filter((l) => l.msg === "tag scanned");
  const watched = logs.slice(from).filter((l) => l.msg === "render watch");
  for (const w of watched) ends.set(String(w.render_end), (ends.get(String(w.render_end)) ?? 0) + 1);
  const phase = (k: string) => Math.round(med(scanned.map((s) => (s.phase_ms as Record<string, number>)[k]!)));
  console.log(`static 300x250 tag, ${rounds} scans, 1-min load median ${med(loads).toFixed(1)}`);
  console.log(`  scan() p50 ${Math.round(med(total))} ms; scan log ms p50 ${Math.round(med(scanned.map((s) => s.ms as number)))}`);
  console.log(`  phase_ms p50: setup ${phase("setup")} / render ${phase("render")} / measure ${phase("measure")} / accessibility ${phase("accessibility")} / landing ${phase("landing")}`);
  console.log(`  render watch p50: first paint ${med(watched.map((w) => (w.paints_ms as number[])[0] ?? -1))} ms, last change ${med(watched.map((w) => w.last_change_ms as number))} ms, probes ${med(watched.map((w) => w.probes as number))}; ended ${JSON.stringify(Object.fromEntries(ends))}`);
  if (process.env.MEASURE_VERBOSE) for (const w of watched) console.log(`    ${w.render_end} ${JSON.stringify(w.watch_ms)} lag ${w.capture_lag_ms} probes ${w.probes} paints ${JSON.stringify(w.paints_ms)}`);
  for (const k of Object.keys((watched[0]?.watch_ms as object) ?? {})) {
    console.log(`  watch timing p50 ${k}: ${med(watched.map((w) => (w.watch_ms as Record<string, number>)[k]!))} ms`);
  }
} finally {
  await pool.close();
}
