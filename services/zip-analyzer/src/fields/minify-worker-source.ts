/**
 * Source of the worker thread that runs the minifiers. terser is synchronous CPU work (seconds for a big bundle);
 * in a worker it cannot stall the event loop (NATS heartbeats, other jobs) and a runaway file is stopped with
 * terminate(). Kept as plain CommonJS text evaluated with `eval: true` so it runs the same under tsx, vitest and
 * plain Node, with the minifiers' resolved paths passed in workerData.
 */
export const MINIFY_WORKER_SOURCE = String.raw`
const { parentPort, workerData } = require("node:worker_threads");
const terser = require(workerData.terserPath);
const lightningcss = require(workerData.lightningcssPath);

async function measure(job) {
  const original = Buffer.byteLength(job.code, "utf8");
  try {
    if (job.kind === "js") {
      const out = await terser.minify(job.code, {
        compress: true,
        mangle: true,
        module: job.module,
        // Licence banners (/*! ... */, @license, @preserve) stay in real minified output: keep them here too.
        format: { comments: "some" },
      });
      return { name: job.name, kind: job.kind, original, minified: Buffer.byteLength(out.code || "", "utf8") };
    }
    const out = lightningcss.transform({
      filename: "input.css",
      code: Buffer.from(job.code, "utf8"),
      minify: true,
      // Old IE hacks (*zoom, _height) are common in banners; dropping them costs a few bytes, not a parse failure.
      errorRecovery: true,
    });
    return { name: job.name, kind: job.kind, original, minified: out.code.length, warnings: out.warnings.length };
  } catch (err) {
    const message = err && err.message ? String(err.message) : "unparseable";
    return { name: job.name, kind: job.kind, original, error: message.slice(0, 200) };
  }
}

parentPort.on("message", async (job) => {
  parentPort.postMessage(await measure(job));
});
`;
