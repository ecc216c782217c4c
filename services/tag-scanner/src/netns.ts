import { type ChildProcess, spawn } from "node:child_process";
import type { Server } from "node:net";
import { childEnv } from "@cva/platform";

/**
 * A network namespace per browser whose only way out is the scan's egress proxy.
 *
 * Chromium obeys its proxy setting, but a compromised renderer or browser process does not have to, and WebRTC, DNS
 * prefetch or a context made without a proxy would bypass it. So the browser runs in a network namespace of its own
 * that has nothing but a loopback interface: no route, no DNS, no host ports. The egress proxies still run in this
 * process, in the host's namespace, and still connect out under the outbound policy — only their listening sockets
 * live in the browser's namespace: a small helper process inside it binds 127.0.0.1:0 there and hands the socket to us
 * over its IPC channel, so connections are accepted here with no forwarding hop.
 *
 * The helper is started first and owns the namespace (as root: `unshare --net`; as any other user: a user namespace
 * mapping that user to root, plus the network namespace); the browser's wrapper joins it with nsenter.
 */
export interface BrowserNetns {
  /** The helper's pid: the wrapper joins its namespaces (`nsenter -t <pid>`, sandbox.ts). */
  readonly pid: number;
  /** A TCP socket listening on 127.0.0.1:<port> inside the namespace, accepted in this process. */
  listen(): Promise<Server>;
  /** Set when the helper is gone: no new proxies can be made for this browser. */
  readonly exited: boolean;
  close(): void;
}

// Runs inside the namespace. It only binds listening sockets; it exits with its IPC channel (our process gone).
const HELPER = `
const net = require("node:net");
process.on("disconnect", () => process.exit(0));
process.on("message", (m) => {
  const s = net.createServer();
  s.once("error", (e) => process.send({ id: m.id, error: String(e && e.code || e) }));
  s.listen(0, "127.0.0.1", () => { process.send({ id: m.id }, s, () => s.close()); });
});
process.send({ ready: true });
`;

export async function createBrowserNetns(opts: { timeoutMs?: number } = {}): Promise<BrowserNetns> {
  const root = process.getuid?.() === 0;
  const nsArgs = root ? ["--net"] : ["--user", "--map-root-user", "--net"];
  // `ip` brings the namespace's loopback up: without it nothing, not even 127.0.0.1, is reachable in there.
  const helper: ChildProcess = spawn("unshare", [...nsArgs, "--", "sh", "-c", 'ip link set lo up && exec "$0" -e "$1"', process.execPath, HELPER], {
    stdio: ["ignore", "ignore", "pipe", "ipc"],
    env: childEnv(),
  });
  let stderr = "";
  helper.stderr?.on("data", (d: Buffer) => {
    if (stderr.length < 2_000) stderr += d.toString();
  });
  let exited = false;
  const pending = new Map<number, { resolve(s: Server): void; reject(e: Error): void }>();
  const fail = (why: string) => {
    exited = true;
    for (const p of pending.values()) p.reject(new Error(why));
    pending.clear();
  };
  helper.on("exit", (code, sig) => fail(`the browser's network namespace helper exited (${sig ?? code})`));
  helper.on("error", (e) => fail(`the browser's network namespace helper could not start: ${e.message}`));

  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("the browser's network namespace did not come up in time")), opts.timeoutMs ?? 10_000);
    helper.once("message", () => {
      clearTimeout(timer);
      resolve();
    });
    helper.once("exit", () => {
      clearTimeout(timer);
      reject(new Error(`cannot create the browser's network namespace (unshare/ip): ${stderr.trim().slice(0, 300) || "helper exited"}`));
    });
  });

  let nextId = 1;
  helper.on("message", (m: { id?: number; error?: string }, handle?: unknown) => {
    const p = m.id !== undefined ? pending.get(m.id) : undefined;
    if (!p || m.id === undefined) return;
    pending.delete(m.id);
    if (handle) p.resolve(handle as Server);
    else p.reject(new Error(`cannot listen in the browser's network namespace: ${m.error ?? "no socket"}`));
  });

  return {
    pid: helper.pid!,
    get exited() {
      return exited;
    },
    listen() {
      if (exited) return Promise.reject(new Error("the browser's network namespace is gone"));
      const id = nextId++;
      return new Promise<Server>((resolve, reject) => {
        pending.set(id, { resolve, reject });
        helper.send({ id });
      });
    },
    close() {
      if (!exited) helper.kill("SIGKILL");
    },
  };
}
