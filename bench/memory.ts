// Memory of a process tree (the tag scanner's Chromium: browser, zygotes, GPU, network and every renderer), read from
// /proc: proportional set size (PSS, smaps_rollup), so pages the processes share are counted once, not once per
// process as RSS would. Linux only; where /proc cannot be read the figure is absent.
import { readFileSync, readdirSync } from "node:fs";

export interface TreeMemory {
  /** PSS of every descendant of the root (the root itself left out), MB. */
  pssMb: number;
  processes: number;
}

function parentOf(pid: number): number | undefined {
  try {
    // The command name (2nd field) may hold spaces and parentheses: the ppid is the 2nd field after its last ")".
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  } catch {
    return undefined;
  }
}

function pssKb(pid: number): number {
  try {
    const m = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, "utf8"));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/** The descendants of `root` and their PSS, now. */
export function treeMemory(root: number): TreeMemory | undefined {
  let pids: number[];
  try {
    pids = readdirSync("/proc").filter((d) => /^\d+$/.test(d)).map(Number);
  } catch {
    return undefined;
  }
  const children = new Map<number, number[]>();
  for (const pid of pids) {
    const ppid = parentOf(pid);
    if (ppid === undefined) continue;
    children.set(ppid, [...(children.get(ppid) ?? []), pid]);
  }
  let kb = 0, n = 0;
  const todo = [...(children.get(root) ?? [])];
  while (todo.length > 0) {
    const pid = todo.pop()!;
    kb += pssKb(pid);
    n++;
    todo.push(...(children.get(pid) ?? []));
  }
  return { pssMb: kb / 1024, processes: n };
}

/** Samples a tree's memory every `everyMs` until stopped; the median PSS and process count seen. */
export function sampleTree(root: number | undefined, everyMs = 1_000) {
  const seen: TreeMemory[] = [];
  const take = () => {
    const m = root ? treeMemory(root) : undefined;
    if (m && m.processes > 0) seen.push(m);
  };
  const timer = setInterval(take, everyMs);
  take();
  return {
    stop(): { pssMb: number; processes: number } | undefined {
      clearInterval(timer);
      if (seen.length === 0) return undefined;
      const mid = <T>(xs: T[], f: (x: T) => number) => xs.map(f).sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
      return { pssMb: mid(seen, (m) => m.pssMb), processes: mid(seen, (m) => m.processes) };
    },
  };
}
