import { type ChildProcess, spawn } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import { PRLIMIT, prlimitArgs } from "../exec.ts";
import { ImageInputError } from "./errors.ts";
import type { MeasureJob, MeasureResult } from "./measure.ts";
import type { WorkerReply, WorkerRequest } from "./worker.ts";

/**
 * The image worker process: sharp/libvips decode the client's bytes there, never in the prober's process. A native
 * decoder's memory lives outside V8's heap, where a worker thread's resourceLimits do not reach, and a libvips
 * operation cannot be stopped from JavaScript; a process can be bounded by the kernel and killed. So:
 * - **memory**: RLIMIT_AS of `addressSpaceBytes` (util-linux prlimit, as for ffmpeg): an allocation past it fails
 *   inside libvips (sharp rejects: "needs more memory than its bound") or kills the process; either way that image
 *   is refused and the next one gets a fresh process;
 * - **time**: `timeoutMs` per image, then SIGKILL of its process group;
 * - **CPU**: RLIMIT_CPU of `cpuSeconds` over the process's life, a backstop for a process nobody watches any more
 *   (it retires itself at half of it, and exits when the prober's IPC channel closes);
 * - no core dumps, at most 256 descriptors, no file writes over 1 MiB (it writes none).
 * One image at a time per process; `processes` of them. A process that died or was killed is replaced for the next image.
 */
export interface DecodeProcessOptions {
  /**
   * RLIMIT_AS of the process, bytes. Address space, not memory in use: the bundled worker maps 0.8 GiB before its
   * first pixel, the worker run from source through tsx 2.4 GiB (VmPeak, measured); pixels come on top.
   */
  addressSpaceBytes: number;
  /** Wall-clock limit per image, ms. */
  timeoutMs: number;
  /** RLIMIT_CPU over the process's life, s. */
  cpuSeconds: number;
  /** V8 old-space heap of the process, MB (pixels are in buffers outside it). */
  heapMb: number;
  /** Worker processes (images measured at a time). */
  processes: number;
  /** libvips threads per operation. */
  threads: number;
}

export const DEFAULT_DECODE_OPTIONS: DecodeProcessOptions = {
  addressSpaceBytes: 3 * 1024 ** 3,
  timeoutMs: 20_000,
  cpuSeconds: 1200,
  heapMb: 256,
  processes: 1,
  threads: 2,
};

export interface DecodeProcesses {
  /**
   * Measures one image in a worker process, within `timeoutMs` of its start and before `deadline` (epoch ms; the
   * scan's, which also counts the wait for a free process).
   */
  measure(job: MeasureJob, opts?: { deadline?: number; signal?: AbortSignal }): Promise<MeasureResult>;
  /** Starts the worker processes now rather than on the first image (a service start, not a client, pays for it). */
  warmUp(): Promise<void>;
  /** Process ids of the live worker processes (tests and diagnostics). */
  pids(): number[];
  close(): Promise<void>;
}

const MiB = 1024 ** 2;

/**
 * In dist/ the build rewrites the entry's URL to its bundle (scripts/lib/build.ts WORKER_ENTRIES) and plain node runs
 * it. From source (development, tests) node loads the .ts entry through tsx's loader.
 */
function workerCommand(): string[] {
  const entry = new URL("./worker.ts", import.meta.url);
  if (entry.pathname.endsWith(".js")) return [fileURLToPath(entry)];
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
  return ["--import", tsx, fileURLToPath(entry)];
}

interface Slot {
  child?: ChildProcess;
  ready?: Promise<ChildProcess>;
  chain: Promise<unknown>;
  busy: number;
}

export function createDecodeProcesses(options: Partial<DecodeProcessOptions> = {}): DecodeProcesses {
  const o: DecodeProcessOptions = { ...DEFAULT_DECODE_OPTIONS, ...options };
  const slots: Slot[] = Array.from({ length: Math.max(1, o.processes) }, () => ({ chain: Promise.resolve(), busy: 0 }));
  let nextId = 1;
  let closed = false;

  function start(slot: Slot): Promise<ChildProcess> {
    const args = [
      ...prlimitArgs({ addressSpaceBytes: o.addressSpaceBytes, cpuSeconds: o.cpuSeconds, fileSizeBytes: MiB, openFiles: 256 }),
      "--",
      process.execPath,
      `--max-old-space-size=${o.heapMb}`,
      // WebAssembly's bounds-check guard regions reserve 8 GiB of address space per memory (tsx's loader instantiates
      // one): without this flag no WebAssembly runs under RLIMIT_AS (Node ≥ 20.15 / 22.2).
      "--disable-wasm-trap-handler",
      ...workerCommand(),
    ];
    const child = spawn(PRLIMIT, args, {
      detached: true,
      stdio: ["ignore", "ignore", "pipe", "ipc"],
      serialization: "advanced",
      // Only what node and the worker need: nothing of the prober's credentials reaches the decoder's process.
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        // glibc's per-thread arenas reserve 64 MiB of address space each; two keep RLIMIT_AS about pixels.
        MALLOC_ARENA_MAX: "2",
        CVA_IMAGE_THREADS: String(o.threads),
        CVA_IMAGE_CPU_SECONDS: String(o.cpuSeconds),
        ...(process.env.TSX_TSCONFIG_PATH ? { TSX_TSCONFIG_PATH: process.env.TSX_TSCONFIG_PATH } : {}),
      },
    });
    // Keep the last few KB of stderr for the log of an unexpected exit; never for clients.
    let stderr = "";
    child.stderr?.on("data", (d: Buffer) => {
      stderr = (stderr + d.toString("utf8")).slice(-4000);
    });
    child.unref();
    (child.stderr as { unref?: () => void } | null)?.unref?.();
    (child.channel as { unref?: () => void } | null | undefined)?.unref?.();
    slot.child = child;
    const ready = new Promise<ChildProcess>((resolve, reject) => {
      const startTimer = setTimeout(() => fail(new Error("the image worker process did not start within 30 s")), 30_000);
      const fail = (e: Error) => {
        clearTimeout(startTimer);
        kill(child);
        reject(e);
      };
      child.once("error", (e) => fail(new Error(`the image worker process could not be started: ${e.message}`)));
      child.once("exit", (code, signal) => fail(new Error(`the image worker process exited on start (${code ?? signal}): ${stderr.trim().slice(-300)}`)));
      child.once("message", (m: unknown) => {
        clearTimeout(startTimer);
        if ((m as { ready?: boolean })?.ready) resolve(child);
        else fail(new Error("the image worker process said something unexpected on start"));
      });
    });
    child.once("exit", () => {
      if (slot.child === child) {
        slot.child = undefined;
        slot.ready = undefined;
      }
    });
    ready.catch(() => {});
    return ready;
  }

  function kill(child: ChildProcess): void {
    if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
    try {
      process.kill(-child.pid, "SIGKILL"); // its process group: prlimit exec'd node, same pid and group
    } catch {
      // gone already
    }
  }

  async function runOnce(slot: Slot, job: MeasureJob, deadline: number, signal?: AbortSignal): Promise<MeasureResult | "retired"> {
    const child = await (slot.ready ??= start(slot));
    if (signal?.aborted) throw signal.reason;
    const left = deadline - Date.now();
    // The image's own limit makes a time-out the file's doing; the scan's deadline, nearer, is not.
    const timeoutMs = Math.min(o.timeoutMs, left);
    const byDeadline = left < o.timeoutMs;
    if (timeoutMs <= 0) throw new Error("the scan's deadline was reached before the image could be decoded");
    const id = nextId++;
    return new Promise<MeasureResult | "retired">((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        child.off("message", onMessage);
        child.off("exit", onExit);
        signal?.removeEventListener("abort", onAbort);
      };
      const onMessage = (m: WorkerReply) => {
        if (m.id !== id) return;
        done();
        if (m.ok) resolve(m.result);
        else reject(m.input ? new ImageInputError(m.message) : new Error(`image measurement failed: ${m.message}`));
      };
      const onExit = (code: number | null, sig: NodeJS.Signals | null) => {
        done();
        // Exit 0 between our send and its reply: it retired (CPU budget); the caller retries on a fresh process.
        if (code === 0) return resolve("retired");
        reject(
          new ImageInputError(
            sig === "SIGXCPU"
              ? "decoding the image reached the decoder's CPU time limit; not measured"
              : sig === "SIGKILL"
              ? "the image decoder was killed by the system (its CPU time or memory limit); not measured"
              : `the image decoder stopped (${code ?? sig}): the image needs more than the decoder's memory bound of ${Math.round(o.addressSpaceBytes / MiB)} MiB or is malformed; not measured`,
          ),
        );
      };
      // A process this side kills is forgotten at once: the next image must not be sent to it before its exit event.
      const drop = () => {
        if (slot.child === child) {
          slot.child = undefined;
          slot.ready = undefined;
        }
        kill(child);
      };
      const onAbort = () => {
        done();
        drop();
        reject(signal!.reason);
      };
      const timer = setTimeout(() => {
        done();
        drop();
        reject(
          byDeadline
            ? new Error("image decoding stopped: the scan's deadline was reached")
            : new ImageInputError(`decoding the image took over ${timeoutMs} ms; not measured`),
        );
      }, timeoutMs);
      child.on("message", onMessage);
      child.on("exit", onExit);
      signal?.addEventListener("abort", onAbort, { once: true });
      // Copy, not transfer: the caller keeps its bytes (a few MB at most, under the size limit).
      child.send({ id, job } satisfies WorkerRequest);
    });
  }

  async function run(slot: Slot, job: MeasureJob, deadline: number, signal?: AbortSignal): Promise<MeasureResult> {
    const first = await runOnce(slot, job, deadline, signal);
    if (first !== "retired") return first;
    const second = await runOnce(slot, job, deadline, signal);
    if (second === "retired") throw new Error("the image worker process retired twice in a row");
    return second;
  }

  return {
    measure(job, opts = {}) {
      if (closed) return Promise.reject(new Error("the image decoder is closed"));
      if (opts.signal?.aborted) return Promise.reject(opts.signal.reason);
      const deadline = opts.deadline ?? Number.POSITIVE_INFINITY;
      const slot = slots.reduce((a, b) => (b.busy < a.busy ? b : a));
      slot.busy++;
      const p = slot.chain.then(() => run(slot, job, deadline, opts.signal));
      slot.chain = p.catch(() => {}).finally(() => slot.busy--);
      return p;
    },
    async warmUp() {
      await Promise.all(slots.map((s) => (s.ready ??= start(s))));
    },
    pids() {
      return slots.flatMap((s) => (s.child?.pid !== undefined && s.child.exitCode === null && s.child.signalCode === null ? [s.child.pid] : []));
    },
    async close() {
      closed = true;
      await Promise.all(
        slots.map(async (s) => {
          const c = s.child;
          s.child = undefined;
          s.ready = undefined;
          if (!c || c.exitCode !== null || c.signalCode !== null) return;
          const gone = new Promise((r) => c.once("exit", r));
          kill(c);
          await gone;
        }),
      );
    },
  };
}
