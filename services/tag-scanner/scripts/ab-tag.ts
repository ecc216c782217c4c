// A/B of the tag scanner at scanner level (issue 22: compare in the same minutes, never against another time's
// figure): a git ref's services/tag-scanner/src (A, default main) and this checkout's (B) as two scanners on one
// browser (1 x 4 slots), the bench's static 300x250 v3 tag, blocks alternating A B / B A: each block one scan that
// builds its next page under its own code, then two measured scans back to back 150 ms apart (the edge's hop). CPU is
// user + sys of this process and every Chromium process (exited renderers through their reaper), per scan over the
// block; with wall time, phase_ms and steps_ms (where B logs them) as medians, and the 1-min load.
// Usage: npx tsx services/tag-scanner/scripts/ab-tag.ts [rounds] [ref]   (JOB=zip: the bench's zip, framed, v2;
// JOB=landing: the v3 tag with capture_landing_page, as the edge sends it and the bench scans it; FLOOR=1: each round
// also runs the bench's floor twice on the same browser — bench/browser-floor.ts floorScan's unit of work, here as
// floorScan below (a service's script imports no bench code) — with its CPU, so that both read against the floor of
// the same minutes)
import { execSync } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import { createMemoryArtifactSink, createOutboundPolicy } from "@cva/platform";
import { readdirSync, readFileSync } from "node:fs";
import { loadavg } from "node:os";
import * as B from "../src/index.ts";
import { keptLog, STATIC_AD, staticAdJob, zipAdJob, type Log, type LogLine } from "./static-ad-kit.ts";
import type { Browser } from "puppeteer-core";

const rounds = Number(process.argv[2] ?? 8);
const ref = process.argv[3] ?? "main";
// Inside the workspace, so that the copy resolves the same packages; removed at the end.
const refDir = new URL("../.ab-ref/", import.meta.url).pathname;
rmSync(refDir, { recursive: true, force: true });
mkdirSync(refDir);
execSync(`git archive ${ref} src | tar -x -C ${refDir}`, { cwd: new URL("..", import.meta.url).pathname });
process.on("exit", () => rmSync(refDir, { recursive: true, force: true }));
const A = (await import(`${refDir}src/index.ts`)) as typeof B;
const logs: LogLine[] = [];
const mk = (b: object): Log => keptLog(logs, b);
// JOB=landing: the static tag as the edge sends a v3 scanTag (capture_landing_page set), as the bench scans it.
const landingJob = () => { const j = staticAdJob(); if (j.input.case === "tag") j.input.value.captureLandingPage = true; return j; };
const job = process.env.JOB === "zip" ? zipAdJob : process.env.JOB === "landing" ? landingJob : staticAdJob;
const pool = B.createBrowserPool({ browsers: 1, slots: 4 });
const mkScanner = (M: typeof B) => M.createTagScanner({ pool, artifacts: createMemoryArtifactSink(), location: "usa", policy: createOutboundPolicy([]), logger: mk({}), consentStates: true });
const sc: Record<string, ReturnType<typeof B.createTagScanner>> = { A: mkScanner(A), B: mkScanner(B) };
function cpuSeconds(): number {
  const kids = new Map<number, number[]>(); const ticks = new Map<number, number>();
  for (const d of readdirSync("/proc")) { if (!/^\d+$/.test(d)) continue;
    try { const stat = readFileSync(`/proc/${d}/stat`, "utf8"); const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const pid = Number(d), ppid = Number(f[1]); kids.set(ppid, [...(kids.get(ppid) ?? []), pid]);
      ticks.set(pid, Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])); } catch {} }
  let sum = 0; const walk = (p: number) => { for (const k of kids.get(p) ?? []) { sum += ticks.get(k) ?? 0; walk(k); } }; walk(process.pid);
  const own = process.cpuUsage(); return sum / 100 + (own.user + own.system) / 1e6;
}
const med = (xs: number[]) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]! : NaN);
for (const k of ["A", "B", "A", "B"]) await sc[k]!.scan(job());
const wall: Record<string, number[]> = { A: [], B: [], F: [] }, cpu: Record<string, number[]> = { A: [], B: [], F: [] };
const floor = process.env.FLOOR === "1";
/** bench/browser-floor.ts floorScan: new context, page, the creative set and loaded, its box shot, context closed. */
async function floorScan(browser: Browser): Promise<number> {
  const t = performance.now();
  const context = await browser.createBrowserContext();
  try {
    const page = await context.newPage();
    await page.setContent(`<!doctype html><html><body style="margin:0">${STATIC_AD}</body></html>`, { waitUntil: "load" });
    await page.screenshot({ type: "png", clip: { x: 0, y: 0, width: 300, height: 250 } });
  } finally {
    await context.close();
  }
  return performance.now() - t;
}
const lease = floor ? await pool.acquire() : undefined;
const floorBrowser = lease?.browser;
lease?.release();
const ph: Record<string, Array<Record<string, number>>> = { A: [], B: [] };
const floorAfter: Record<string, number[]> = { A: [], B: [] };
const loads: number[] = [];
for (let r = 0; r < rounds; r++) {
  for (const v of r % 2 ? ["B", "A"] : ["A", "B"]) {
    await sc[v]!.scan(job()); // its next page is built under this scanner's rule
    await new Promise((ok) => setTimeout(ok, 150));
    const c = cpuSeconds();
    for (let i = 0; i < 2; i++) {
      const f = logs.length, t = performance.now();
      await sc[v]!.scan(job());
      wall[v]!.push(performance.now() - t);
      const l = logs.slice(f).find((x) => x.msg === "tag scanned");
      ph[v]!.push({ ...(l?.phase_ms as object), ...(l?.steps_ms as object) });
      await new Promise((ok) => setTimeout(ok, 150));
    }
    cpu[v]!.push((cpuSeconds() - c) * 1000 / 2);
    loads.push(loadavg()[0]!);
  }
  if (floorBrowser) {
    const c = cpuSeconds();
    // Which scanner's scans the floor followed: work a scanner leaves after its scans falls on this floor.
    const after = r % 2 ? "A" : "B";
    for (let i = 0; i < 2; i++) { const w = await floorScan(floorBrowser); wall.F!.push(w); floorAfter[after]!.push(w); await new Promise((ok) => setTimeout(ok, 150)); }
    cpu.F!.push((cpuSeconds() - c) * 1000 / 2);
  }
}
if (floorBrowser) console.log(`floor (bench/browser-floor.ts, same browser, same rounds): wall p50 ${Math.round(med(wall.F!))} ms (n=${wall.F!.length}), CPU p50 ${Math.round(med(cpu.F!))} ms; right after ${ref}'s scans ${Math.round(med(floorAfter.A!))} ms, after this checkout's ${Math.round(med(floorAfter.B!))} ms`);
for (const v of ["A", "B"]) {
  const keys = [...new Set(ph[v]!.flatMap((o) => Object.keys(o)))];
  console.log(`${v === "A" ? ref : "this checkout"} (${v}): wall p50 ${Math.round(med(wall[v]!))} ms (n=${wall[v]!.length}), CPU/scan p50 ${Math.round(med(cpu[v]!))} ms (mean ${Math.round(cpu[v]!.reduce((a, b) => a + b, 0) / cpu[v]!.length)})`);
  console.log("   walls " + wall[v]!.map(Math.round).join(","));
  console.log("   " + keys.map((k) => `${k} ${Math.round(med(ph[v]!.map((o) => o[k]).filter((x) => x !== undefined)))}`).join(" / "));
}
console.log(`load median ${med(loads).toFixed(1)} (${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)})`);
await pool.close();
process.exit(0);
