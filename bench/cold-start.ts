// Cold start of every process: from spawn to its health check passing (grpc.health.v1 SERVING; the edge: /healthz
// 200) — the figure a replica added by KEDA or `--scale` costs before it takes work — for the production bundle with
// plain node (dist/, as the image runs it) beside the same process from source under tsx (`npm start`).
// Rounds alternate the two so machine load hits both alike. Each process gets its own NATS user and credentials on a
// private nats-server, as in the stack.
//
// `npm run bench:cold-start` prints this table alone; `npm run bench` calls coldStart(table) (bench/run.ts).
import { spawn } from "node:child_process";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { connectNats, createDispatcher, createLogger, newSecret, type NatsPasswords } from "@cva/platform";
import { startNatsServer } from "@cva/platform/testing/index.ts";
import { healthOf } from "../scripts/container/healthcheck.ts";
import { buildAll } from "../scripts/lib/build.ts";
import { INHERITED_SECRETS_DROPPED, stackProcesses } from "../scripts/lib/stack.ts";
import { SERVICE_NAMES, type ServiceName } from "../scripts/lib/services.ts";
import { freeStackPorts, repoRoot } from "../test/harness/stack.ts";
import { BenchTable, median, ms, ratio } from "./table.ts";

const ROUNDS = Number(process.env.COLD_START_ROUNDS ?? 3);
const TIMEOUT_MS = 90_000;

/** Milliseconds from spawn to healthy for one process, run from dist/ (built) or from source under tsx. */
async function timeToHealthy(name: ServiceName, built: boolean, natsUrl: string, passwords: NatsPasswords): Promise<number> {
  const secrets = { service: newSecret(), admin: newSecret(), nats: passwords };
  const spec = stackProcesses(repoRoot, await freeStackPorts(), natsUrl, secrets, { built }).find((s) => s.name === name)!;
  const env: NodeJS.ProcessEnv = { ...process.env, ...spec.env, LOG_LEVEL: "warn", CVA_SERVICE: name };
  for (const v of INHERITED_SECRETS_DROPPED) if (!(v in spec.env)) delete env[v];
  const args = spec.entry.endsWith(".ts") ? ["--import", "tsx", spec.entry] : [spec.entry];
  const started = performance.now();
  const child = spawn(process.execPath, args, { env, stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (b: Buffer) => (stderr = (stderr + b.toString()).slice(-2000)));
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${name} exited (${child.exitCode}): ${stderr}`);
      if ((await healthOf({ ...env, BIND_HOST: "127.0.0.1" })) === undefined) return performance.now() - started;
      if (performance.now() - started > TIMEOUT_MS) throw new Error(`${name} not healthy within ${TIMEOUT_MS} ms`);
      await new Promise((r) => setTimeout(r, 10));
    }
  } finally {
    const exited = new Promise((r) => child.once("exit", r));
    child.kill("SIGTERM");
    const t = setTimeout(() => child.kill("SIGKILL"), 10_000);
    await exited;
    clearTimeout(t);
  }
}

export async function coldStart(table: BenchTable): Promise<void> {
  const build = await buildAll(repoRoot);
  table.add({ figure: "production build (npm run build, esbuild)", value: ms(build.ms), floor: "—", vs: "—" });
  const nats = await startNatsServer({ users: true });
  try {
    // Scanners may not create the job stream; a requester (the edge's user) does, as in a running stack.
    const nc = await connectNats(nats.url, "bench-cold-start", { auth: nats.authFor("edge") });
    await (await createDispatcher(nc, { logger: createLogger("bench", "silent") })).close();
    await nc.close();
    for (const name of SERVICE_NAMES) {
      const times = { built: [] as number[], tsx: [] as number[] };
      for (let round = 0; round < ROUNDS; round++) {
        for (const built of round % 2 === 0 ? [true, false] : [false, true]) {
          times[built ? "built" : "tsx"].push(await timeToHealthy(name, built, nats.url, nats.passwords!));
        }
      }
      const b = median(times.built);
      const t = median(times.tsx);
      table.add({ figure: `cold start: ${name}, spawn → healthy (median of ${ROUNDS})`, value: `${ms(b)} built`, floor: `${ms(t)} tsx`, vs: ratio(b, t) });
    }
  } finally {
    await nats.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const table = new BenchTable();
  await coldStart(table);
  console.log(table.markdown());
  process.stderr.write(`(${join("bench", "cold-start.ts")}: Node ${process.version}, ${ROUNDS} rounds)\n`);
}
