// Which TCP addresses a process tree listens on, from Linux's /proc (what `ss -ltnp` shows): proves which doors are
// reachable from the network without having to find a second interface to knock on.
import { readdirSync, readFileSync, readlinkSync } from "node:fs";

export interface Listener {
  pid: number;
  address: string;
  port: number;
}

function descendants(pid: number): number[] {
  const out = [pid];
  for (let i = 0; i < out.length; i++) {
    let tasks: string[] = [];
    try {
      tasks = readdirSync(`/proc/${out[i]}/task`);
    } catch {
      continue;
    }
    for (const t of tasks) {
      try {
        out.push(...readFileSync(`/proc/${out[i]}/task/${t}/children`, "utf8").split(/\s+/).filter(Boolean).map(Number));
      } catch {
        /* exited meanwhile */
      }
    }
  }
  return [...new Set(out)];
}

function socketInodes(pid: number): Set<string> {
  const inodes = new Set<string>();
  let fds: string[] = [];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return inodes;
  }
  for (const fd of fds) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]!);
    } catch {
      /* closed meanwhile */
    }
  }
  return inodes;
}

// /proc/net/tcp{,6} hex "0100007F:1F90" → 127.0.0.1:8080; IPv6 as 4 little-endian 32-bit words.
function parseAddress(hex: string, v6: boolean): { address: string; port: number } {
  const [a, p] = hex.split(":");
  const port = parseInt(p!, 16);
  if (!v6) return { address: a!.match(/../g)!.reverse().map((b) => parseInt(b, 16)).join("."), port };
  const bytes = a!.match(/.{8}/g)!.flatMap((w) => w.match(/../g)!.reverse());
  const groups = bytes.join("").match(/.{4}/g)!.map((g) => parseInt(g, 16).toString(16));
  const address = groups.join(":").replace(/(^|:)0(:0)+(:|$)/, "::");
  return { address: address === "0:0:0:0:0:0:0:1" ? "::1" : address, port };
}

export function listeners(rootPids: number[]): Listener[] {
  const byInode = new Map<string, { address: string; port: number }>();
  for (const [file, v6] of [["/proc/net/tcp", false], ["/proc/net/tcp6", true]] as const) {
    let text = "";
    try {
      text = readFileSync(file, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n").slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 10 || f[3] !== "0A") continue; // 0A = LISTEN
      byInode.set(f[9]!, parseAddress(f[1]!, v6));
    }
  }
  const out: Listener[] = [];
  for (const pid of rootPids.flatMap(descendants)) {
    for (const inode of socketInodes(pid)) {
      const l = byInode.get(inode);
      if (l) out.push({ pid, ...l });
    }
  }
  return out;
}

export const isLoopback = (address: string) => address.startsWith("127.") || address === "::1" || address === "::ffff:127.0.0.1";
