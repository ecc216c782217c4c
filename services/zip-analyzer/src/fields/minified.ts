import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import { MINIFY_WORKER_SOURCE } from "./minify-worker-source.ts";

/**
 * minified: false when at least one CSS or JavaScript *file* of the zip would shrink by more than 5% under a real
 * minifier (terser 5, compress + mangle, licence comments kept; lightningcss, minify); true otherwise.
 *
 * Decisions:
 *  - Files only (.js/.mjs/.cjs/.css anywhere in the zip, referenced or not), as the v2 spec words it. Inline
 *    <script>/<style> blocks of HTML files are not measured: authoring tools (GWD, Animate) emit small readable
 *    glue code inline in otherwise minified creatives, and the field is about the shipped JS/CSS assets.
 *  - A file the minifier cannot parse is skipped and noted, as is one over `maxFileBytes` or one not reached
 *    within `timeoutMs`; skipped files do not make the creative "not minified".
 *  - Smallest files first, stopping at the first one that shrinks by more than the threshold.
 */
export interface MinifyCandidate {
  name: string;
  kind: "js" | "css";
  code: string;
  module?: boolean;
}

export interface MinifyMeasure {
  name: string;
  kind: "js" | "css";
  originalBytes: number;
  minifiedBytes: number;
  /** 1 - minified/original. */
  saving: number;
}

export interface MinifiedResult {
  minified: boolean;
  measured: MinifyMeasure[];
  skipped: Array<{ name: string; reason: string }>;
}

export interface MinifyOptions {
  /** Saving above which a file counts as not minified (0.05 = 5%). */
  threshold?: number;
  maxFileBytes?: number;
  timeoutMs?: number;
  signal?: AbortSignal;
}

const requireFromHere = createRequire(import.meta.url);

interface WorkerReply {
  name: string;
  kind: "js" | "css";
  original: number;
  minified?: number;
  error?: string;
}

export function minifyCandidates(files: ReadonlyArray<{ name: string; text?: string }>): MinifyCandidate[] {
  const out: MinifyCandidate[] = [];
  for (const f of files) {
    if (f.text === undefined) continue;
    const lower = f.name.toLowerCase();
    if (/\.(?:js|mjs|cjs)$/.test(lower)) out.push({ name: f.name, kind: "js", code: f.text, module: lower.endsWith(".mjs") });
    else if (lower.endsWith(".css")) out.push({ name: f.name, kind: "css", code: f.text });
  }
  return out;
}

/**
 * Whether `minified` was measured. A file over the threshold settles it (false) whatever else happened. Otherwise
 * "true" needs every file measured: a file skipped because it is too large, or never reached (time-out, worker
 * failure, abort), could be the unminified one. A file the minifier cannot parse counts as measured (there is nothing
 * a minifier would make of it). Returns the reason when not measured, undefined when measured.
 */
export function minifiedNotMeasured(result: MinifiedResult): string | undefined {
  if (!result.minified) return undefined;
  const unknown = result.skipped.filter((s) => !s.reason.startsWith("could not be parsed"));
  if (unknown.length === 0) return undefined;
  const shown = unknown.slice(0, 3).map((s) => `${s.name} (${s.reason})`).join(", ");
  return `minified not measured: ${unknown.length} file${unknown.length === 1 ? "" : "s"} not checked: ${shown}${unknown.length > 3 ? ", ..." : ""}`;
}

export async function checkMinified(candidates: readonly MinifyCandidate[], options: MinifyOptions = {}): Promise<MinifiedResult> {
  const threshold = options.threshold ?? 0.05;
  const maxFileBytes = options.maxFileBytes ?? 5 * 1024 * 1024;
  const timeoutMs = options.timeoutMs ?? 20_000;
  const result: MinifiedResult = { minified: true, measured: [], skipped: [] };
  const queue: MinifyCandidate[] = [];
  for (const c of candidates) {
    const size = Buffer.byteLength(c.code, "utf8");
    if (size === 0) continue;
    if (size > maxFileBytes) result.skipped.push({ name: c.name, reason: `larger than ${maxFileBytes} bytes` });
    else queue.push(c);
  }
  if (queue.length === 0) return result;
  queue.sort((a, b) => a.code.length - b.code.length);

  const worker = new Worker(MINIFY_WORKER_SOURCE, {
    eval: true,
    workerData: { terserPath: requireFromHere.resolve("terser"), lightningcssPath: requireFromHere.resolve("lightningcss") },
  });
  worker.unref();
  let pending = 0;
  try {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => finish("minification check timed out"), timeoutMs);
      const onAbort = (): void => finish("aborted");
      options.signal?.addEventListener("abort", onAbort, { once: true });
      let done = false;
      function finish(reason?: string): void {
        if (done) return;
        done = true;
        clearTimeout(timer);
        options.signal?.removeEventListener("abort", onAbort);
        if (reason) for (const c of queue.slice(pending)) result.skipped.push({ name: c.name, reason });
        resolve();
      }
      const sendNext = (): void => {
        if (pending >= queue.length) return finish();
        const c = queue[pending];
        worker.postMessage({ name: c.name, kind: c.kind, code: c.code, module: c.module ?? false });
      };
      worker.on("message", (reply: WorkerReply) => {
        pending++;
        if (reply.error !== undefined || reply.minified === undefined) {
          result.skipped.push({ name: reply.name, reason: `could not be parsed: ${reply.error ?? "no output"}` });
        } else {
          const saving = reply.original === 0 ? 0 : 1 - reply.minified / reply.original;
          result.measured.push({ name: reply.name, kind: reply.kind, originalBytes: reply.original, minifiedBytes: reply.minified, saving });
          if (saving > threshold) {
            result.minified = false;
            return finish();
          }
        }
        sendNext();
      });
      worker.on("error", () => finish("minifier worker failed"));
      worker.on("exit", () => finish("minifier worker exited"));
      sendNext();
    });
  } finally {
    await worker.terminate();
  }
  return result;
}
