import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { Worker, type WorkerOptions } from "node:worker_threads";

/**
 * The screenshot's image work (PNG decode, dominant colour, border, JPEG thumbnail) on a worker thread with its own
 * heap limit, so a full-budget screenshot neither stalls the scanner's event loop — where every concurrent scan's CDP
 * events and the render watch's evidence arrive — nor grows its heap. One thread, one image at a time: the machine's
 * cores are the browsers'. A worker that dies (heap limit) or overruns its time is replaced; that scan's image fields
 * stay empty, as with an undecodable screenshot.
 */
export interface ImageJob { id: number; png: Uint8Array; cssWidth: number | undefined; thumbWidth: number }
export type ImageResult =
  | { id: number; ok: true; color: string; hasBorder: boolean; thumbnail: Uint8Array }
  | { id: number; ok: false; error: string };

export interface ImageAnalysis { color: string; hasBorder: boolean; thumbnail: Uint8Array }

export interface ImageWork {
  /** `cssWidth`: the shot's width in CSS px (the border is measured in CSS px); undefined skips the border. */
  analyse(png: Uint8Array, cssWidth: number | undefined): Promise<ImageAnalysis>;
  close(): Promise<void>;
}

export interface ImageWorkOptions {
  /** Old-space heap of the thread, MB (pixels live in buffers outside it; the 8 M pixel clip bounds those). */
  heapMb?: number;
  timeoutMs?: number;
  thumbWidth?: number;
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

export function createImageWork(opts: ImageWorkOptions = {}): ImageWork {
  const heapMb = opts.heapMb ?? 256;
  const timeoutMs = opts.timeoutMs ?? 15_000;
  const thumbWidth = opts.thumbWidth ?? 300;
  let worker: Worker | undefined;
  let nextId = 1;
  let chain: Promise<unknown> = Promise.resolve();

  function start(): Worker {
    const w = startWorker({ resourceLimits: { maxOldGenerationSizeMb: heapMb, maxYoungGenerationSizeMb: 32 } });
    w.unref();
    w.on("exit", () => {
      if (worker === w) worker = undefined;
    });
    w.on("error", () => {});
    return w;
  }

  function run(png: Uint8Array, cssWidth: number | undefined): Promise<ImageAnalysis> {
    const w = (worker ??= start());
    const id = nextId++;
    return new Promise<ImageAnalysis>((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        w.off("message", onMessage);
        w.off("exit", onExit);
      };
      const onMessage = (m: ImageResult) => {
        if (m.id !== id) return;
        done();
        if (m.ok) resolve({ color: m.color, hasBorder: m.hasBorder, thumbnail: new Uint8Array(m.thumbnail) });
        else reject(new Error(`screenshot not decodable: ${m.error}`));
      };
      const onExit = () => {
        done();
        reject(new Error("the image worker stopped (heap limit)"));
      };
      const timer = setTimeout(() => {
        done();
        if (worker === w) worker = undefined;
        void w.terminate();
        reject(new Error(`the screenshot's image work took over ${timeoutMs} ms`));
      }, timeoutMs);
      w.on("message", onMessage);
      w.on("exit", onExit);
      w.postMessage({ id, png, cssWidth, thumbWidth } satisfies ImageJob);
    });
  }

  return {
    analyse(png, cssWidth) {
      const p = chain.then(() => run(png, cssWidth));
      chain = p.catch(() => {});
      return p;
    },
    async close() {
      const w = worker;
      worker = undefined;
      if (w) await w.terminate();
    },
  };
}
