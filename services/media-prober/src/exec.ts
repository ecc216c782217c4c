import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { childEnv, dropPrivilegesArgs, lookupUnprivilegedUser, type UnprivilegedUser } from "@cva/platform";

export interface ToolRun {
  stdout: string;
  stderr: string;
}

/**
 * OS limits on one ffprobe/ffmpeg process, set by util-linux `prlimit` before it execs the tool (RLIMIT_AS,
 * RLIMIT_CPU, RLIMIT_FSIZE, RLIMIT_NOFILE, RLIMIT_CORE): what a decoder bug or a hostile file can take is bounded by
 * the kernel, whatever the process does, even if this process dies and its time-out never fires.
 */
export interface ResourceLimits {
  /** Address space, bytes: an allocation past it fails (ffmpeg reports ENOMEM and exits). */
  addressSpaceBytes: number;
  /** CPU seconds, all threads together: SIGXCPU at the limit, SIGKILL a second later. */
  cpuSeconds: number;
  /** Largest file the process may write, bytes (its images): SIGXFSZ past it. */
  fileSizeBytes: number;
  /** Open file descriptors. */
  openFiles: number;
}

/**
 * 3 GiB of address space: the video pass opens the file three times (three decoders); an 8K 10-bit HEVC file needs
 * under 1.5 GiB for one decoder with two threads, 4K under 768 MiB. CPU time: by default the wall-clock time-out
 * times the decode threads, plus one second (the time-out normally ends a pass first; this one holds when it cannot).
 */
export const DEFAULT_RESOURCE_LIMITS: Omit<ResourceLimits, "cpuSeconds"> = {
  addressSpaceBytes: 3 * 1024 ** 3,
  fileSizeBytes: 64 * 1024 ** 2,
  openFiles: 256,
};

export interface ToolOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  /** Upper bound for stdout and for stderr each; ffmpeg's info log grows with the number of frames analysed. */
  maxBuffer?: number;
  /** OS limits; by default DEFAULT_RESOURCE_LIMITS and a CPU budget derived from timeoutMs. */
  limits?: Partial<ResourceLimits>;
}

/**
 * A tool that exited non-zero, timed out, hit an OS limit or could not start. `stderr` is for logs only, never for
 * clients. `limit` says which OS limit ended it when `reason` is "limit".
 */
export class ToolError extends Error {
  constructor(
    message: string,
    readonly tool: string,
    readonly reason: "exit" | "timeout" | "spawn" | "limit",
    readonly stderr: string,
    readonly limit?: "cpu" | "memory" | "file_size",
  ) {
    super(message);
    this.name = "ToolError";
  }
}

export const PRLIMIT = "/usr/bin/prlimit";

/** False where util-linux's prlimit is missing: main.ts refuses to start rather than run ffmpeg unbounded. */
export function prlimitAvailable(): boolean {
  return existsSync(PRLIMIT);
}

let toolUserCache: { user: UnprivilegedUser | undefined } | undefined;

/**
 * Who ffmpeg and ffprobe run as. As root (`npm start` on a dev machine or CI) a decoder exploit would own the machine,
 * so they drop to MEDIA_PROBER_FFMPEG_USER (default `nobody`, the same setpriv mechanism as the tag scanner's
 * Chromium); as any other user (the image) they run as that user. The prober gives each probe's directory to this user
 * (prober.ts), so the decoder can read the download and write its images there and nothing else of ours.
 */
export function toolUser(env: NodeJS.ProcessEnv = process.env): UnprivilegedUser | undefined {
  toolUserCache ??= {
    user: process.getuid?.() === 0 ? lookupUnprivilegedUser(env.MEDIA_PROBER_FFMPEG_USER || "nobody", "MEDIA_PROBER_FFMPEG_USER") : undefined,
  };
  return toolUserCache.user;
}

/** CPU seconds for a process with this wall-clock time-out (see DEFAULT_RESOURCE_LIMITS). */
export function cpuSecondsFor(timeoutMs: number, threads: number): number {
  return Math.max(1, Math.ceil(timeoutMs / 1000) * Math.max(1, threads) + 1);
}

/** The prlimit arguments in front of the tool. Soft = hard: the kernel's answer is final. */
export function prlimitArgs(l: ResourceLimits): string[] {
  const pair = (n: number) => `${Math.floor(n)}:${Math.floor(n)}`;
  return [
    `--as=${pair(l.addressSpaceBytes)}`,
    // Soft limit → SIGXCPU; one more second → SIGKILL, for a process that ignores SIGXCPU.
    `--cpu=${Math.floor(l.cpuSeconds)}:${Math.floor(l.cpuSeconds) + 1}`,
    `--fsize=${pair(l.fileSizeBytes)}`,
    `--nofile=${pair(l.openFiles)}`,
    "--core=0:0",
  ];
}

const ENOMEM = /Cannot allocate memory|out of memory|ENOMEM/i;

/**
 * Runs ffmpeg/ffprobe without a shell (arguments are never parsed by a shell) under `prlimit`, in a process group of
 * its own: on time-out or abort the whole group is killed with SIGKILL (anything the tool started goes with it). An
 * abort rejects with the signal's reason (the caller cancelled; no result is wanted). The tool gets a minimal
 * environment (childEnv: PATH and the locale) and, when this process is root, runs as toolUser() with no groups, no
 * capabilities and no_new_privs.
 */
export function runTool(tool: string, args: string[], opts: ToolOptions): Promise<ToolRun> {
  return new Promise((resolve, reject) => {
    if (opts.signal?.aborted) {
      reject(opts.signal.reason);
      return;
    }
    const limits: ResourceLimits = {
      ...DEFAULT_RESOURCE_LIMITS,
      cpuSeconds: cpuSecondsFor(opts.timeoutMs, 2),
      ...opts.limits,
    };
    const maxBuffer = opts.maxBuffer ?? 32 * 1024 * 1024;
    // setpriv drops to the tool user and execs prlimit, which sets the limits on itself and execs the tool: one pid,
    // one process group throughout.
    const user = toolUser();
    const argv = [...(user ? dropPrivilegesArgs(user, { noNewPrivs: true }) : []), PRLIMIT, ...prlimitArgs(limits), "--", tool, ...args];
    const child = spawn(argv[0]!, argv.slice(1), {
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      windowsHide: true,
      env: childEnv(),
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let outBytes = 0;
    let errBytes = 0;
    let ended: "timeout" | "abort" | "buffer" | undefined;
    const killGroup = (why: NonNullable<typeof ended>) => {
      ended ??= why;
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // Already gone.
      }
    };
    const collect = (into: Buffer[], which: "out" | "err") => (chunk: Buffer) => {
      const total = which === "out" ? (outBytes += chunk.length) : (errBytes += chunk.length);
      if (total > maxBuffer) {
        killGroup("buffer");
        return;
      }
      into.push(chunk);
    };
    child.stdout!.on("data", collect(out, "out"));
    child.stderr!.on("data", collect(err, "err"));
    const timer = setTimeout(() => killGroup("timeout"), opts.timeoutMs);
    const onAbort = () => killGroup("abort");
    opts.signal?.addEventListener("abort", onAbort, { once: true });
    let spawnError: NodeJS.ErrnoException | undefined;
    child.once("error", (e: NodeJS.ErrnoException) => {
      spawnError = e;
    });
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      opts.signal?.removeEventListener("abort", onAbort);
      const stdout = Buffer.concat(out).toString("utf8");
      const stderr = Buffer.concat(err).toString("utf8");
      if (opts.signal?.aborted) return reject(opts.signal.reason);
      if (spawnError) return reject(new ToolError(`${tool} could not be started: ${spawnError.code ?? "error"}`, tool, "spawn", stderr));
      if (ended === "timeout") return reject(new ToolError(`${tool} timed out after ${opts.timeoutMs} ms`, tool, "timeout", stderr));
      if (ended === "buffer") return reject(new ToolError(`${tool} wrote more output than allowed`, tool, "exit", stderr));
      if (code === 0) return resolve({ stdout, stderr });
      // Signals we did not send are the kernel enforcing a limit (SIGKILL: the hard CPU limit). ffmpeg catches
      // SIGXCPU and exits with 255 ("Exiting normally, received signal 24"); ffprobe dies of it.
      if (signal === "SIGXCPU" || signal === "SIGKILL" || (tool === "ffmpeg" && code === 255)) {
        return reject(new ToolError(`${tool} exceeded its CPU time limit of ${limits.cpuSeconds} s`, tool, "limit", stderr, "cpu"));
      }
      if (signal === "SIGXFSZ") return reject(new ToolError(`${tool} exceeded its file size limit`, tool, "limit", stderr, "file_size"));
      // prlimit (or setpriv) exits 1 with its own message when it cannot exec the next program.
      if ((code === 1 || code === 127) && /^(prlimit|setpriv): /m.test(stderr)) return reject(new ToolError(`${tool} could not be started`, tool, "spawn", stderr));
      if (ENOMEM.test(stderr.slice(-4000))) {
        return reject(new ToolError(`${tool} ran out of its address space limit`, tool, "limit", stderr, "memory"));
      }
      reject(new ToolError(`${tool} exited with ${code ?? signal}`, tool, "exit", stderr));
    });
  });
}
