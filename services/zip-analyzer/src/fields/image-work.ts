import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { Worker, type WorkerOptions } from "node:worker_threads";
import type { ReencodeBudget } from "./image-reencode.ts";
import { createPixelGate } from "./pixel-gate.ts";

/**
 * Re-encoding a zip's images on worker threads, one image at a time per zip. The work is synchronous (zlib, jpeg-js:
 * up to seconds for a 4 MP image) and its input is the creative's: on the main thread it stalled every other job of
 * the process (NATS heartbeats, in-progress acks), and a PNG decompression bomb took the process to its memory limit
 * — the job was then redelivered to the next replica, three times. Here:
 *  - each worker's JS heap is capped (`resourceLimits`); a worker that reaches it dies alone (ERR_WORKER_OUT_OF_MEMORY)
 *    and only that image is "not checked". Buffers live outside that heap, so what they may hold is bounded where
 *    they are made (image-reencode.ts: inflate output, jpeg-js's allocations);
 *  - each image gets `perImageMs`; past it the worker is terminated, the image reported, and the next one gets a new
 *    worker;
 *  - the job's `signal` stops it at once.
 * A zip being checked holds a worker of its own (ImageWorkers.acquire): at most as many workers as zips checked at
 * once (the process's slots). Starting one costs from a few hundred ms (built) to seconds (tsx, a loaded machine), so
 * a released worker is kept for the next zip, one at most, for `idleMs`. What images cost outside the workers' heaps
 * is bounded for the process as a whole by a pixel gate (pixel-gate.ts): at most `pixelsAtOnce` re-encoded at once.
 */
export interface ImageRequest { id: number; format: "png" | "jpeg"; data: Uint8Array; budget: ReencodeBudget }
export type ImageReply = { id: number; ok: true; bytes: number } | { id: number; ok: false; refused: boolean; error: string };

/** `refused`: the image broke a budget (error says which); otherwise it could not be decoded (error says why). */
export type ReencodeOutcome = { ok: true; bytes: number } | { ok: false; refused: boolean; error: string };

export interface ReencodeOptions {
  budget: ReencodeBudget;
  perImageMs: number;
  /** The image's declared pixel count: its weight in the process's pixel gate (pixel-gate.ts). */
  pixels?: number;
  signal?: AbortSignal;
}

/** One worker thread (started on first use, replaced after it was stopped). */
export interface ImageWork {
  reencode(format: "png" | "jpeg", data: Uint8Array, opts: ReencodeOptions): Promise<ReencodeOutcome>;
  close(): Promise<void>;
}

/**
 * In dist/ the build rewrites the entry's URL to its bundle (scripts/lib/build.ts WORKER_ENTRIES). From source
 * (development, tests) the .ts entry is loaded through tsx's API: Node 20 applies no `--import` loader to workers.
 */
function startWorker(options: WorkerOptions): Worker {
  const entry = new URL("./image-worker.ts", import.meta.url);
  if (entry.pathname.endsWith(".js")) return new Worker(entry, options);
  // The package's "import" condition, which createRequire cannot ask for.
  const api = pathToFileURL(createRequire(import.meta.url).resolve("tsx/esm/api").replace(/index\.cjs$/, "index.mjs")).href;
  const code = `import(${JSON.stringify(api)}).then((tsx) => tsx.tsImport(${JSON.stringify(entry.href)}, ${JSON.stringify(entry.href)}))`;
  return new Worker(code, { ...options, eval: true });
}

// A worker that does not answer "ready" in this time is broken (a loaded machine starts one in well under a second).
const START_MS = 30_000;

export function createImageWork(opts: { heapMb: number }): ImageWork {
  let current: Promise<Worker> | undefined;
  let nextId = 1;
  let closed = false;

  function start(): Promise<Worker> {
    const w = startWorker({ resourceLimits: { maxOldGenerationSizeMb: opts.heapMb, maxYoungGenerationSizeMb: 16 } });
    w.unref();
    w.on("error", () => {});
    const ready = new Promise<Worker>((resolve, reject) => {
      const timer = setTimeout(() => fail(new Error("the image worker did not start")), START_MS);
      const onMessage = (m: { ready?: boolean }) => {
        if (!m.ready) return;
        cleanup();
        resolve(w);
      };
      const fail = (err: Error) => {
        cleanup();
        void w.terminate();
        reject(err);
      };
      const onExit = () => fail(new Error("the image worker stopped while starting"));
      const cleanup = () => {
        clearTimeout(timer);
        w.off("message", onMessage);
        w.off("exit", onExit);
      };
      w.on("message", onMessage);
      w.on("exit", onExit);
    });
    w.once("exit", () => {
      if (current === ready) current = undefined;
    });
    return ready;
  }

  function drop(w: Worker): void {
    void current?.then((c) => {
      if (c === w) current = undefined;
    }, () => {});
    void w.terminate();
  }

  async function reencode(format: "png" | "jpeg", data: Uint8Array, { budget, perImageMs, signal }: ReencodeOptions): Promise<ReencodeOutcome> {
    if (closed) throw new Error("image work closed");
    const pending = (current ??= start());
    pending.catch(() => {
      if (current === pending) current = undefined;
    });
    const w = await pending;
    const id = nextId++;
    // A copy of exactly the image's bytes, handed over: the file may be a view into the whole zip.
    const copy = new Uint8Array(data);
    return new Promise<ReencodeOutcome>((resolve) => {
      const finish = (out: ReencodeOutcome, kill: boolean) => {
        clearTimeout(timer);
        w.off("message", onMessage);
        w.off("error", onError);
        w.off("exit", onExit);
        signal?.removeEventListener("abort", onAbort);
        if (kill) drop(w);
        resolve(out);
      };
      const onMessage = (m: ImageReply) => {
        if (m.id !== id) return;
        finish(m.ok ? { ok: true, bytes: m.bytes } : { ok: false, refused: m.refused, error: m.error }, false);
      };
      let died = "the image worker stopped";
      const onError = (err: Error & { code?: string }) => {
        if (err.code === "ERR_WORKER_OUT_OF_MEMORY") died = `decoding it took more than the image worker's ${opts.heapMb} MB heap`;
      };
      const onExit = () => finish({ ok: false, refused: true, error: died }, true);
      const onAbort = () => finish({ ok: false, refused: true, error: "the scan ran out of time" }, true);
      const timer = setTimeout(() => finish({ ok: false, refused: true, error: `re-encoding it took longer than ${perImageMs} ms` }, true), perImageMs);
      w.on("message", onMessage);
      w.on("error", onError);
      w.on("exit", onExit);
      if (signal?.aborted) return onAbort();
      signal?.addEventListener("abort", onAbort, { once: true });
      w.postMessage({ id, format, data: copy, budget } satisfies ImageRequest, [copy.buffer as ArrayBuffer]);
    });
  }

  return {
    reencode,
    async close() {
      closed = true;
      const p = current;
      current = undefined;
      const w = await p?.catch(() => undefined);
      if (w) await w.terminate();
    },
  };
}

export interface ImageWorkers {
  /** A worker for one caller until it calls release(). */
  acquire(): ImageWork & { release(): void };
  close(): Promise<void>;
}

/**
 * Workers with `heapMb` each; one released worker is kept `idleMs` for the next caller; all of them together
 * re-encode at most `pixelsAtOnce` pixels at a time (waiting counts against the caller's time, its signal).
 */
export function createImageWorkers(opts: { heapMb: number; pixelsAtOnce: number; idleMs?: number }): ImageWorkers {
  const idleMs = opts.idleMs ?? 30_000;
  const gate = createPixelGate(opts.pixelsAtOnce);
  let idle: { work: ImageWork; timer: NodeJS.Timeout } | undefined;
  const busy = new Set<ImageWork>();
  return {
    acquire() {
      let work: ImageWork;
      if (idle) {
        clearTimeout(idle.timer);
        work = idle.work;
        idle = undefined;
      } else {
        work = createImageWork({ heapMb: opts.heapMb });
      }
      busy.add(work);
      let released = false;
      return {
        async reencode(format, data, o) {
          let release: () => void;
          try {
            release = await gate.take(o.pixels ?? opts.pixelsAtOnce, o.signal);
          } catch {
            return { ok: false, refused: true, error: "the scan ran out of time" };
          }
          try {
            return await work.reencode(format, data, o);
          } finally {
            release();
          }
        },
        close: () => work.close(),
        release() {
          if (released) return;
          released = true;
          busy.delete(work);
          if (idle) return void work.close();
          const timer = setTimeout(() => {
            if (idle?.work === work) idle = undefined;
            void work.close();
          }, idleMs);
          timer.unref();
          idle = { work, timer };
        },
      };
    },
    async close() {
      const all = [...busy, ...(idle ? [idle.work] : [])];
      if (idle) clearTimeout(idle.timer);
      idle = undefined;
      busy.clear();
      await Promise.all(all.map((w) => w.close()));
    },
  };
}
