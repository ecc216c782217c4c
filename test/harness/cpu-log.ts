// Loaded in every test worker before its file (vitest `setupFiles`). With CVA_TEST_CPU_LOG=<path>, appends one JSON line
// per test file: its wall time and the CPU time (user+sys) spent by its worker and by every process below it (a
// browser and its renderers, nats-server, a stack's services), from the file's import to its last afterAll. Vitest's
// own durations are wall time only, which on a shared 2-core host says little: this tells a file that waits (a
// render's fixed window, a reservation's expiry) from one that burns the cores, which is what decides where a file can
// run beside others. Off by default (nothing is read or written).
//
// The processes below the worker are sampled every second (pid and start time, their own CPU), because a reaped
// child's CPU reaches the worker's only when every level reaped the one below: Chromium is started detached and its
// renderers often die with it unreaped by it, so the worker's rusage alone read 5 CPU-s of a file whose tree used ~15.
// A process that lived less than a second and was not the worker's own child is missed: a lower bound.
import { appendFileSync, readFileSync } from "node:fs";
import { afterAll } from "vitest";
import { descendants } from "./process-guard/tree.ts";

const log = process.env.CVA_TEST_CPU_LOG;
const TICKS = 100; // clock ticks a second in /proc/<pid>/stat (USER_HZ, 100 on Linux)

/** Fields after "(comm) " of /proc/<pid>/stat, or undefined when the process is gone. */
function stat(pid: number | "self"): string[] | undefined {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, "latin1");
    return s.slice(s.lastIndexOf(")") + 2).split(" ");
  } catch {
    return undefined;
  }
}

/** This process's CPU seconds, and those of the children it reaped (fields 16, 17: cutime, cstime). */
function ownAndReaped(): { own: number; reaped: number } {
  const u = process.cpuUsage();
  const f = stat("self")!;
  return { own: (u.user + u.system) / 1e6, reaped: (Number(f[13]) + Number(f[14])) / TICKS };
}

if (log) {
  const wall0 = performance.now();
  const start = ownAndReaped();
  // "pid:start" → that process's own CPU seconds when last seen (fields 14, 15: utime, stime)
  const below = new Map<string, number>();
  const sample = () => {
    for (const p of descendants(process.pid)) {
      const f = stat(p.pid);
      if (f && f[19] === p.start) below.set(`${p.pid}:${p.start}`, (Number(f[11]) + Number(f[12])) / TICKS);
    }
  };
  sample(); // what was already there (a shared worker's helpers) is counted from here on, not from its start
  const before = new Map(below);
  const timer = setInterval(sample, 1_000);
  timer.unref();
  afterAll(({}, suite) => {
    clearInterval(timer);
    sample();
    const end = ownAndReaped();
    let seen = 0;
    for (const [k, cpu] of below) seen += cpu - (before.get(k) ?? 0);
    // Either count may hold a process the other lacks (one reaped before it was sampled, one never reaped): the larger.
    const children = Math.max(end.reaped - start.reaped, seen);
    const file = "filepath" in suite ? String(suite.filepath) : suite.name;
    const line = {
      file: file.replace(`${process.cwd()}/`, ""),
      wallS: +((performance.now() - wall0) / 1000).toFixed(1),
      cpuS: +(end.own - start.own + children).toFixed(1),
      workerCpuS: +(end.own - start.own).toFixed(1),
    };
    appendFileSync(log, JSON.stringify(line) + "\n");
  });
}
