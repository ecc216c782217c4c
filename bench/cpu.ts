// CPU time (user + sys) of the stack's processes over a measurement, per process type: each node service, NATS, and
// the tag scanner's Chromium split by Chromium process type (browser, zygote + renderers, GPU, network, other
// utilities). Read from /proc, so it is the work done, whatever else loads the machine: on a shared 2-core host wall
// time says little, CPU seconds per scan say what a change saved. Linux only; elsewhere the figure is absent.
//
// A process that exits between the two readings is counted through its parent: the kernel adds a reaped child's
// user + sys to the parent's cutime + cstime, so summing (utime + stime + cutime + cstime) over every process at the
// end less the same at the start counts each exited renderer once, under its reaper (a zygote: "renderer").
import { readFileSync, readdirSync } from "node:fs";

const TICK_S = 0.01; // USER_HZ is 100 on Linux

interface Proc { pid: number; ppid: number; self: number; children: number; kind?: string }

function readProc(pid: number): Proc | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // Fields after the command: state(0) ppid(1) ... utime(11) stime(12) cutime(13) cstime(14).
    return { pid, ppid: Number(f[1]), self: Number(f[11]) + Number(f[12]), children: Number(f[13]) + Number(f[14]) };
  } catch {
    return undefined;
  }
}

function chromiumKind(pid: number): string {
  let cmd = "";
  try {
    cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " ");
  } catch {
    return "chromium other";
  }
  if (!/chrom/i.test(cmd)) return "chromium wrapper";
  const type = /--type=([\w-]+)/.exec(cmd)?.[1];
  if (!type) return "chromium browser";
  if (type === "zygote" || type === "renderer") return "chromium renderers";
  if (type === "gpu-process") return "chromium gpu";
  if (type === "utility") return /NetworkService/.test(cmd) ? "chromium network" : "chromium utility";
  return `chromium ${type}`;
}

/** Every process now, with the kind it counts under: a named root's own name, its descendants' Chromium type. */
function snapshot(roots: Map<string, number>, chromiumRoot: string): Map<number, Proc> {
  const all = new Map<number, Proc>();
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    const p = readProc(Number(d));
    if (p) all.set(p.pid, p);
  }
  const out = new Map<number, Proc>();
  for (const [name, pid] of roots) {
    const root = all.get(pid);
    if (!root) continue;
    out.set(pid, { ...root, kind: name });
    if (name !== chromiumRoot) continue;
    const todo = [pid];
    while (todo.length) {
      const parent = todo.pop()!;
      for (const p of all.values()) {
        if (p.ppid !== parent || out.has(p.pid)) continue;
        out.set(p.pid, { ...p, kind: chromiumKind(p.pid) });
        todo.push(p.pid);
      }
    }
  }
  return out;
}

export interface CpuByKind { [kind: string]: number }

/**
 * Starts counting the CPU of `roots` (name → pid) and of the descendants of `chromiumRoot`. `stop()` gives CPU
 * seconds per kind over the interval; a reaped child's time counts under its reaper's kind, and the reaper's own
 * `children` time under "<kind> children" unless it is Chromium's (zygote → renderers).
 */
export function countCpu(roots: Map<string, number>, chromiumRoot = "tag-scanner") {
  const start = snapshot(roots, chromiumRoot);
  return {
    stop(): CpuByKind {
      const end = snapshot(roots, chromiumRoot);
      const out: CpuByKind = {};
      const add = (k: string, ticks: number) => { out[k] = (out[k] ?? 0) + ticks * TICK_S; };
      const childKind = (p: Proc) => (p.kind!.startsWith("chromium") || p.kind === chromiumRoot ? (p.kind === chromiumRoot ? "chromium exited" : p.kind!) : p.kind!);
      for (const p of end.values()) {
        const s = start.get(p.pid);
        add(p.kind!, p.self - (s?.self ?? 0));
        add(childKind(p), p.children - (s?.children ?? 0));
      }
      // Gone since the start: its time until then is in `start`, all of it now in its reaper's children time.
      for (const s of start.values()) if (!end.has(s.pid)) { add(s.kind!, -s.self); add(childKind(s), -s.children); }
      for (const k of Object.keys(out)) out[k] = Math.max(0, Math.round(out[k]! * 100) / 100);
      return out;
    },
  };
}

export const totalCpu = (c: CpuByKind) => Object.values(c).reduce((a, b) => a + b, 0);

/**
 * Waits until the process tree of `root` (the tag scanner and its Chromium) has used at most `idleCpuMs` of CPU over
 * `windowMs`: the work a scan leaves behind once answered (its slot's next page, built after the scan when pages are
 * ready for every scan: tag-scanner scanner.ts) is over. A floor measured right after a scan would otherwise share the
 * cores with it (measured: the tag floor +65 ms median, branch tagperf6). Bounded by `boundMs`; gives the ms waited.
 */
export async function untilIdle(root: { name: string; pid: number }, opts: { windowMs?: number; idleCpuMs?: number; boundMs?: number } = {}): Promise<number> {
  const { windowMs = 100, idleCpuMs = 10, boundMs = 3_000 } = opts;
  const t0 = Date.now();
  while (Date.now() - t0 < boundMs) {
    const c = countCpu(new Map([[root.name, root.pid]]), root.name);
    await new Promise((r) => setTimeout(r, windowMs));
    // /proc counts in 10 ms ticks: "at most one tick a window" is as idle as it can read.
    if (totalCpu(c.stop()) * 1000 <= idleCpuMs) break;
  }
  return Date.now() - t0;
}
