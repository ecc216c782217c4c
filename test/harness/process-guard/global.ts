// vitest `globalSetup`, in the main process. A watchdog for what a test worker started: every 5 s it notes each
// process below a worker (pid and start time), and kills the ones whose worker is gone — a worker killed outright
// leaves its children to init, out of any tree, where only this record still finds them. At the end of the run it
// kills everything it noted that is still there. Only processes that were below this run's workers are ever touched
// (other runs on a shared machine are not), and a pid reused by another process is told apart by its start time.
import { alive, descendants, killAll, processTable, type Proc } from "./tree.ts";

// A process started and orphaned within one period (its worker killed outright right after it started) is never seen:
// a stack lives for many seconds, and what lived longer is caught. CVA_PROCESS_GUARD_MS: for the guard's own test.
const SCAN_MS = Number(process.env.CVA_PROCESS_GUARD_MS) || 5_000;

// vitest runs a globalSetup once per project: one watchdog for the run, torn down by the last teardown.
const shared = globalThis as { cvaProcessGuard?: { users: number; teardown: () => void } };

export default function setup(): () => void {
  if (!shared.cvaProcessGuard) shared.cvaProcessGuard = { users: 0, teardown: start() };
  const guard = shared.cvaProcessGuard;
  guard.users++;
  return () => {
    if (--guard.users > 0) return;
    delete shared.cvaProcessGuard;
    guard.teardown();
  };
}

function start(): () => void {
  // worker "pid:start" → the processes seen below it
  const below = new Map<string, { worker: Proc; procs: Map<string, Proc> }>();
  const key = (p: Proc) => `${p.pid}:${p.start}`;

  const scan = () => {
    const table = processTable();
    for (const w of [...table.values()].filter((p) => p.ppid === process.pid)) {
      let entry = below.get(key(w));
      if (!entry) below.set(key(w), (entry = { worker: w, procs: new Map() }));
      for (const p of descendants(w.pid, table)) entry.procs.set(key(p), p);
    }
    for (const [k, { worker, procs }] of below) {
      if (alive(worker)) continue;
      const killed = killAll(procs.values());
      if (killed.length > 0) console.warn(`[process-guard] worker ${worker.pid} is gone; killed what it left running: ${killed.join(", ")}`);
      below.delete(k);
    }
  };
  const timer = setInterval(scan, SCAN_MS);
  timer.unref();

  return () => {
    clearInterval(timer);
    scan();
    const killed = killAll([...below.values()].flatMap(({ procs }) => [...procs.values()]));
    if (killed.length > 0) console.warn(`[process-guard] end of run; killed what was still running: ${killed.join(", ")}`);
  };
}
