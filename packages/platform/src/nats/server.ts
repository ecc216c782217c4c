import { spawn, type ChildProcess } from "node:child_process";
import { childEnv } from "../process/child-env.ts";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { natsAnswers } from "./connect.ts";

export interface NatsServerHandle {
  url: string;
  port: number;
  process: ChildProcess;
  stop(): Promise<void>;
}

// 64 MB: a zip bundle (≤ 50 MB uncompressed) travels inside a tag job; NATS's own hard ceiling is 64 MB.
export const NATS_MAX_PAYLOAD = 64 * 1024 * 1024;

export interface SpawnNatsOptions {
  port: number;
  storeDir: string;
  host?: string;
  // An `authorization { ... }` block (nats-config.ts): users and their permissions. Without it anyone connecting
  // may do anything — only for tests that exercise a single component.
  authorization?: string;
  // nats-server's environment beside PATH and the locale: `$VAR` references in the config resolve from it.
  env?: Record<string, string>;
  // A node of a cluster (cluster.ts): its unique name, its route port and every node's route URL.
  cluster?: { name: string; serverName: string; routePort: number; routes: string[] };
  log?: (line: string) => void;
}

// Runs the system nats-server with JetStream on loopback. Used by `npm start` (data under .data/) and by tests
// (temp dir, free port). A config file is needed because max_payload has no command-line flag; it holds the users'
// passwords, hence mode 0600.
export async function spawnNatsServer(opts: SpawnNatsOptions): Promise<NatsServerHandle> {
  mkdirSync(opts.storeDir, { recursive: true });
  const conf = join(opts.storeDir, "nats.conf");
  writeFileSync(
    conf,
    [
      `listen: "${opts.host ?? "127.0.0.1"}:${opts.port}"`,
      `max_payload: ${NATS_MAX_PAYLOAD}`,
      `jetstream { store_dir: ${JSON.stringify(opts.storeDir)} }`,
      ...(opts.cluster
        ? [
            `server_name: ${JSON.stringify(opts.cluster.serverName)}`,
            `cluster { name: ${JSON.stringify(opts.cluster.name)}, listen: "${opts.host ?? "127.0.0.1"}:${opts.cluster.routePort}", routes: [${opts.cluster.routes.map((r) => JSON.stringify(r)).join(", ")}] }`,
          ]
        : []),
      opts.authorization ?? "",
      "",
    ].join("\n"),
    { mode: 0o600 },
  );
  // writeFileSync keeps the mode of an existing file.
  chmodSync(conf, 0o600);
  // Only what the config references (opts.env): not the caller's environment, which under `npm start` holds every
  // service's credentials.
  const proc = spawn("nats-server", ["-c", conf], { stdio: ["ignore", "pipe", "pipe"], env: childEnv(opts.env) });
  const forward = (b: Buffer) => opts.log?.(b.toString());
  proc.stdout?.on("data", forward);
  proc.stderr?.on("data", forward);
  const url = `nats://127.0.0.1:${opts.port}`;
  const exited = new Promise<number | null>((resolve) => proc.once("exit", (code) => resolve(code)));
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`nats-server exited with code ${proc.exitCode}`);
    if (await natsAnswers(url, 500)) break;
    if (Date.now() > deadline) {
      proc.kill("SIGKILL");
      throw new Error("nats-server did not start within 15 s");
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    port: opts.port,
    process: proc,
    async stop() {
      if (proc.exitCode !== null) return;
      proc.kill("SIGTERM");
      const t = setTimeout(() => proc.kill("SIGKILL"), 5000);
      await exited;
      clearTimeout(t);
    },
  };
}
