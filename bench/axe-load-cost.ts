// What loading axe-core into a scanned frame costs (issue 22), in fresh renderers of a Chromium launched as the tag
// scanner launches its own, variants alternating: N = an empty evaluate (what the measuring itself costs), T = the
// reduced bundle's bytes sent as an unused objectGroup with "0" (CDP transport alone), TE = the same as ASCII,
// A = the reduced bundle as UTF-16 (before ascii-source.ts), E = as the scanner sends it (ASCII). Each into an isolated
// world of a loaded 300x250 page, the Debugger on as the consent sensor has it (DEBUGGER=0: off). Prints wall, the
// renderer main thread's ThreadTime, CPU of node + every Chromium process, and CPU per process kind.
//   V=A,E DEBUGGER=1 node --import tsx bench/axe-load-cost.ts [pairs]
import { readdirSync, readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { createRequire } from "node:module";
import { launchFloorBrowser } from "./browser-floor.ts";
import { axeSubset } from "@cva/tag-scanner/gatherers/axe-subset.ts";
import { AXE_RULES } from "@cva/tag-scanner/gatherers/accessibility.ts";
import { asciiSource } from "@cva/tag-scanner/gatherers/ascii-source.ts";
function perPid(): Map<string, number> {
  const kids = new Map<number, number[]>(); const ticks = new Map<number, number>();
  for (const d of readdirSync("/proc")) { if (!/^\d+$/.test(d)) continue;
    try { const stat = readFileSync(`/proc/${d}/stat`, "utf8"); const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const pid = Number(d), ppid = Number(f[1]); kids.set(ppid, [...(kids.get(ppid) ?? []), pid]);
      ticks.set(pid, Number(f[11]) + Number(f[12])); } catch {} }
  const out = new Map<string, number>();
  const kind = (p: number) => { try { const c = readFileSync(`/proc/${p}/cmdline`, "utf8"); const m = /--type=([a-z-]+)/.exec(c); return m ? m[1]! + (m[1] === "renderer" ? "" : "") : c.includes("chrom") ? "browser" : "other"; } catch { return "?"; } };
  const walk = (p: number) => { for (const k of kids.get(p) ?? []) { out.set(`${k}:${kind(k)}`, ticks.get(k) ?? 0); walk(k); } }; walk(process.pid);
  out.set("node", Math.round((process.cpuUsage().user + process.cpuUsage().system) / 1e4));
  return out;
}
const byKind: Record<string, Record<string, number>> = {};
const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const axe = axeSubset(readFileSync(createRequire(import.meta.resolve("@cva/tag-scanner/gatherers/accessibility.ts")).resolve("axe-core/axe.min.js"), "utf8"), AXE_RULES) + '\n;typeof axe === "object"';
const axeEsc = asciiSource(axe);
const dbg = process.env.DEBUGGER !== "0";
const fb = await launchFloorBrowser(); const browser = fb.browser;
const bs = await browser.target().createCDPSession();
const html = `<div style="width:300px;height:250px;background:#06c">Bench ad</div>`;
async function one(v: string) {
  const ctx = await browser.createBrowserContext();
  const found = ctx.waitForTarget((t) => t.type() === "page");
  await bs.send("Target.createTarget", { url: "about:blank", browserContextId: ctx.id });
  const target = await found; const client = await target.createCDPSession();
  await Promise.all([client.send("Page.enable"), client.send("Runtime.enable"), client.send("Performance.enable", { timeDomain: "threadTicks" }),
    client.send("Runtime.setMaxCallStackSizeToCapture", { size: 0 }), ...(dbg ? [client.send("Debugger.enable"), client.send("Debugger.setSkipAllPauses", { skip: true })] : [])]);
  const loaded = new Promise((ok) => client.once("Page.loadEventFired", ok));
  const { frameTree } = await client.send("Page.getFrameTree");
  await client.send("Page.navigate", { url: "data:text/html," + encodeURIComponent(html) }); await loaded;
  const { executionContextId } = await client.send("Page.createIsolatedWorld", { frameId: frameTree.frame.id, worldName: "w" });
  await new Promise((ok) => setTimeout(ok, 100));
  const tt = async () => (await client.send("Performance.getMetrics")).metrics.find((m) => m.name === "ThreadTime")!.value * 1000;
  const t0 = await tt(); const pp = perPid(); const t = performance.now();
  if (v === "N") await client.send("Runtime.evaluate", { expression: "0", contextId: executionContextId, returnByValue: true });
  else if (v === "T") await client.send("Runtime.evaluate", { expression: "0", contextId: executionContextId, objectGroup: axe, returnByValue: true });
  else if (v === "TE") await client.send("Runtime.evaluate", { expression: "0", contextId: executionContextId, objectGroup: axeEsc, returnByValue: true });
  else await client.send("Runtime.evaluate", { expression: v === "E" ? axeEsc : axe, contextId: executionContextId, returnByValue: true });
  const wall = performance.now() - t; const thread = (await tt()) - t0;
  // CPU of node and every Chromium process (perPid: 10 ms ticks), over the evaluate.
  const pe = perPid(); let cpu = 0; for (const [k, x] of pe) cpu += (x - (pp.get(k) ?? x)) * 10; const bk = (byKind[v] ??= {});
  for (const [k, x] of pe) { const kk = k.split(":").pop()!; bk[kk] = (bk[kk] ?? 0) + (x - (pp.get(k) ?? x)) * 10; }
  await ctx.close();
  return { wall, cpu, thread };
}
const N = Number(process.argv[2] ?? 12);
const V = (process.env.V ?? "N,T,A").split(",");
const r: Record<string, Array<{ wall: number; cpu: number; thread: number }>> = Object.fromEntries(V.map((v) => [v, []]));
await one("A"); await one("T");
for (let i = 0; i < N; i++) for (const v of i % 2 ? [...V].reverse() : V) r[v]!.push(await one(v));
for (const v of V) console.log(v, `debugger ${dbg}: wall p50 ${Math.round(med(r[v]!.map((x) => x.wall)))} ms, renderer main thread ${Math.round(med(r[v]!.map((x) => x.thread)))} ms, CPU all ${Math.round(med(r[v]!.map((x) => x.cpu)))} ms, n ${N}`);
for (const v of V) console.log(v, "CPU ms per kind (mean):", Object.entries(byKind[v]!).map(([k, x]) => `${k} ${(x / (N + 1)).toFixed(1)}`).join(", "));
console.log("load", loadavg()[0].toFixed(1), "bytes", axe.length);
await fb.close(); process.exit(0);
