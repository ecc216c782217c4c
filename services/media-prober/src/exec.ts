import { execFile } from "node:child_process";

export interface ToolRun {
  stdout: string;
  stderr: string;
}

export interface ToolOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  /** Upper bound for stdout and for stderr each; ffmpeg's info log grows with the number of frames analysed. */
  maxBuffer?: number;
}

/** A tool that exited non-zero, timed out or could not start. `stderr` is for logs only, never for clients. */
export class ToolError extends Error {
  constructor(
    message: string,
    readonly tool: string,
    readonly reason: "exit" | "timeout" | "spawn",
    readonly stderr: string,
  ) {
    super(message);
    this.name = "ToolError";
  }
}

/**
 * Runs ffmpeg/ffprobe without a shell (execFile: arguments are never parsed by a shell), kills it with SIGKILL on
 * timeout or abort. An abort rejects with the signal's reason (the caller cancelled; no result is wanted).
 */
export function runTool(tool: string, args: string[], opts: ToolOptions): Promise<ToolRun> {
  return new Promise((resolve, reject) => {
    if (opts.signal?.aborted) {
      reject(opts.signal.reason);
      return;
    }
    const child = execFile(
      tool,
      args,
      {
        timeout: opts.timeoutMs,
        killSignal: "SIGKILL",
        maxBuffer: opts.maxBuffer ?? 32 * 1024 * 1024,
        encoding: "utf8",
        windowsHide: true,
      },
      (err, stdout, stderr) => {
        opts.signal?.removeEventListener("abort", onAbort);
        if (opts.signal?.aborted) {
          reject(opts.signal.reason);
          return;
        }
        if (!err) {
          resolve({ stdout, stderr });
          return;
        }
        const e = err as NodeJS.ErrnoException & { killed?: boolean; signal?: string | null };
        if (e.killed && e.signal === "SIGKILL") {
          reject(new ToolError(`${tool} timed out after ${opts.timeoutMs} ms`, tool, "timeout", stderr));
        } else if (e.code === "ERR_CHILD_PROCESS_STDIO_MAXBUFFER") {
          reject(new ToolError(`${tool} wrote more output than allowed`, tool, "exit", stderr));
        } else if (typeof e.code === "string") {
          reject(new ToolError(`${tool} could not be started: ${e.code}`, tool, "spawn", stderr));
        } else {
          reject(new ToolError(`${tool} exited with ${e.code ?? e.signal}`, tool, "exit", stderr));
        }
      },
    );
    // Kill on abort ourselves rather than via execFile's `signal` option, so that the rejection is the abort reason.
    const onAbort = () => child.kill("SIGKILL");
    opts.signal?.addEventListener("abort", onAbort, { once: true });
  });
}
