// The machine's process table read from /proc, synchronously (an `exit` handler cannot await): who is whose child,
// and when each started, so a pid the kernel reused for someone else's process is never taken for one of ours.
import { readdirSync, readFileSync } from "node:fs";

export interface Proc {
  pid: number;
  ppid: number;
  /** Clock ticks after boot (field 22 of /proc/<pid>/stat): with the pid, names one process for its whole life. */
  start: string;
  /** A zombie (Z) has exited and waits for its parent to reap it: nothing to kill. */
  zombie: boolean;
}

function readStat(pid: number): Proc | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    // "pid (comm) state ppid ..." — comm may hold spaces and parentheses, so the fields start after the last ')'.
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return { pid, ppid: Number(f[1]), start: f[19]!, zombie: f[0] === "Z" };
  } catch {
    return undefined; // gone between readdir and read
  }
}

export function processTable(): Map<number, Proc> {
  const table = new Map<number, Proc>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const p = readStat(Number(name));
    if (p) table.set(p.pid, p);
  }
  return table;
}

/** Every process below `root` in the tree (not `root` itself), parents before their children. */
export function descendants(root: number, table = processTable()): Proc[] {
  const children = new Map<number, Proc[]>();
  for (const p of table.values()) {
    const list = children.get(p.ppid);
    if (list) list.push(p);
    else children.set(p.ppid, [p]);
  }
  const out: Proc[] = [];
  const queue = [root];
  for (let pid = queue.shift(); pid !== undefined; pid = queue.shift()) {
    for (const c of children.get(pid) ?? []) {
      out.push(c);
      queue.push(c.pid);
    }
  }
  return out;
}

/** Whether this very process (same pid, same start) is still there. */
export function alive(p: Pick<Proc, "pid" | "start">): boolean {
  const now = readStat(p.pid);
  return now?.start === p.start && !now.zombie;
}

/** SIGKILL each process still alive as itself; returns the pids killed. SIGKILL because a process left behind by a
 * timed-out hook is one that did not stop when asked. */
export function killAll(procs: Iterable<Pick<Proc, "pid" | "start">>): number[] {
  const killed: number[] = [];
  for (const p of procs) {
    if (!alive(p)) continue;
    try {
      process.kill(p.pid, "SIGKILL");
      killed.push(p.pid);
    } catch {
      // exited meanwhile
    }
  }
  return killed;
}
