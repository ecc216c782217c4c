import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import type { ProcessSpec } from "./stack.ts";

export interface Supervised {
  stop(): Promise<void>;
  children(): Map<string, ChildProcess>;
}

// Runs each process with node — a TypeScript entry through tsx (development), a built one (dist/, `npm start --
// --production`) plainly — prefixes its output with its name, and restarts it (with back-off)
// if it dies while the stack is up — a crashed scanner must not take the product down with it.
// `dropEnv`: variables of this process's environment the children must not inherit (credentials: each child is
// given its own in its spec).
export function supervise(specs: ProcessSpec[], opts: { env?: NodeJS.ProcessEnv; dropEnv?: string[]; out?: (line: string) => void; restart?: boolean } = {}): Supervised {
  const out = opts.out ?? ((l: string) => process.stdout.write(l + "\n"));
  const running = new Map<string, ChildProcess>();
  let stopping = false;
  const width = Math.max(...specs.map((s) => s.name.length));
  const inherited = { ...process.env };
  for (const name of opts.dropEnv ?? []) delete inherited[name];

  const start = (spec: ProcessSpec, attempt = 0) => {
    const args = spec.entry.endsWith(".ts") ? ["--import", "tsx", spec.entry] : [spec.entry];
    const child = spawn(process.execPath, args, {
      env: { ...inherited, ...opts.env, ...spec.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    running.set(spec.name, child);
    const prefix = `[${spec.name.padEnd(width)}] `;
    for (const stream of [child.stdout!, child.stderr!]) createInterface({ input: stream }).on("line", (l) => out(prefix + l));
    const startedAt = Date.now();
    child.once("exit", (code, signal) => {
      if (running.get(spec.name) === child) running.delete(spec.name);
      if (stopping) return;
      out(`${prefix}exited (${signal ?? code})`);
      if (opts.restart === false) return;
      const next = Date.now() - startedAt > 30_000 ? 0 : attempt + 1;
      const delay = Math.min(30_000, 500 * 2 ** next);
      out(`${prefix}restarting in ${delay} ms`);
      setTimeout(() => !stopping && start(spec, next), delay);
    });
  };
  specs.forEach((s) => start(s));

  return {
    children: () => running,
    async stop() {
      stopping = true;
      await Promise.all(
        [...running.values()].map(
          (c) =>
            new Promise<void>((resolve) => {
              if (c.exitCode !== null || c.signalCode !== null) return resolve();
              const t = setTimeout(() => c.kill("SIGKILL"), 8000);
              c.once("exit", () => {
                clearTimeout(t);
                resolve();
              });
              c.kill("SIGTERM");
            }),
        ),
      );
    },
  };
}
