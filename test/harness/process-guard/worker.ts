// Loaded in every test worker before its file (vitest `setupFiles`). Whatever the file started and did not stop —
// a stack whose afterAll timed out, a browser whose close hung, a nats-server — is killed when the file ends, so it
// cannot run on beside the next files (load on a 2-core machine is what the timing tests measure) or outlive the run.
import { afterAll } from "vitest";
import { descendants, killAll, processTable } from "./tree.ts";

// A worker that runs several files (isolate: false) may keep a process for all of them on purpose — one browser pool
// per worker (services/tag-scanner/test/shared-pool.ts) — and names it here: that process and everything below it are
// spared at a file's end, and killed like the rest when the worker stops.
const keep = globalThis as { cvaProcessGuardKeep?: Set<() => number[]> };
keep.cvaProcessGuardKeep ??= new Set();

const killLeftovers = (spareKept = false): number[] => {
  const table = processTable();
  const below = descendants(process.pid, table);
  if (!spareKept) return killAll(below);
  const roots = [...keep.cvaProcessGuardKeep!].flatMap((kept) => kept());
  const spared = new Set(roots.flatMap((pid) => [pid, ...descendants(pid, table).map((p) => p.pid)]));
  return killAll(below.filter((p) => !spared.has(p.pid)));
};
const report = (when: string, killed: number[]) => {
  if (killed.length > 0) console.warn(`[process-guard] ${when}: killed ${killed.length} process(es) the file left running: ${killed.join(", ")}`);
};

// The file's own afterAll hooks run first (after-hooks run in reverse order of registration, and this one is
// registered before the file's), so a file that cleans up after itself leaves nothing here to kill.
// Not in a worker that runs several files (the `units` project): what is below it may serve all of them.
if (process.env.CVA_PROCESS_GUARD_SHARED_WORKER !== "1") afterAll(() => report("after the file", killLeftovers(true)));

// After a hook timed out, vitest runs no further after-hooks of the file (this one included). It then asks the worker
// to stop (an IPC message), and SIGTERMs it, and SIGKILLs it 500 ms later — too soon for a SIGTERM handler on a
// loaded machine. The stop message comes first and is handled in order: the leftovers are killed there.
// Once per worker process: a worker that runs several files (isolate: false) loads this file before each.
const marker = globalThis as { cvaProcessGuardWorker?: true };
if (!marker.cvaProcessGuardWorker) {
  marker.cvaProcessGuardWorker = true;
  process.on("message", (m: { type?: string; __vitest_worker_request__?: boolean } | undefined) => {
    if (m?.__vitest_worker_request__ && m.type === "stop") report("as the worker stopped", killLeftovers());
  });
  // A worker that exits on its own (a crash, process.exit) kills what is still below it as well. One killed outright
  // (SIGKILL) runs no handler: the watchdog in the main process (global.ts) kills what it leaves.
  process.on("exit", () => void killLeftovers());
}
