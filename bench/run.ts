// `npm run bench`: performance figures, each printed beside its floor measured in the same run on the same machine,
// with its goal, in one table. Never part of `npm test`. A figure whose service is not available says why instead of a
// number. BENCH_SECTIONS=rejects,tag,animation,zip,vast,files,capacity,configs,cold-start picks sections (default: all).
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { startStack, type ProcessName, type TestStack } from "../test/harness/stack.ts";
import { DEFAULT_BROWSERS, DEFAULT_SLOTS } from "@cva/tag-scanner/browser-pool.ts";
import { animationVsFloor } from "./animation.ts";
import { accessibilityCost } from "./accessibility.ts";
import { launchFloorBrowser } from "./browser-floor.ts";
import { addCurveRows, bestCurve, floorCurve, summarize, tagCurve, type Curve } from "./capacity.ts";
import { makeVideo, serveVast } from "./creatives.ts";
import { addConsentRows, consentP50s, type ConsentP50s } from "./consent.ts";
import { imageP50, makeVideo1080, uploadRss, videoFileVsFloor } from "./media-files.ts";
import { edgeRejects, tagVsFloor, vastVsFloor, zipVsTag, type Ctx } from "./sections.ts";
import { BenchTable, median, pct } from "./table.ts";

/** Sections measured on the main stack (every process); it is started only when one of them is asked for. */
const MAIN_SECTIONS = ["rejects", "tag", "animation", "zip", "vast", "files", "a11y", "capacity"];
const sections = new Set((process.env.BENCH_SECTIONS ?? "rejects,tag,animation,consent,zip,vast,files,a11y,capacity,configs,cold-start").split(","));
/** Tag scanner configurations the capacity curve is measured for besides the default (DEFAULT_BROWSERS x DEFAULT_SLOTS). */
const CONFIGS = [
  { browsers: 1, slots: 2 },
  { browsers: 1, slots: 4 },
  { browsers: 2, slots: 2 },
  { browsers: 2, slots: 4 },
].filter((c) => c.browsers !== DEFAULT_BROWSERS || c.slots !== DEFAULT_SLOTS);
const configLabel = (b: number, s: number) => `${b} browser${b > 1 ? "s" : ""} × ${s} slots`;

const table = new BenchTable();
const load = () => loadavg().map((l) => l.toFixed(2)).join(" ");
const header = `${cpus().length} cores (${cpus()[0]?.model.trim()}), Node ${process.version}, ${new Date().toISOString().slice(0, 16)}Z; load average at start ${load()}`;
process.stderr.write(`${header}\n`);
// The 1-minute load average every 5 s: a run on a machine busy with other work says so next to its figures.
const loads: number[] = [];
const sampler = setInterval(() => loads.push(loadavg()[0]!), 5000);

const dir = mkdtempSync(join(tmpdir(), "cva-bench-"));
const media = await makeVideo(dir);
const vast = await serveVast(media);
const floor = await launchFloorBrowser();
const curves: Curve[] = [];
let floorC: Curve | undefined;

async function withStack(stack: TestStack, fn: (ctx: Ctx) => Promise<void>): Promise<void> {
  try {
    await fn({ table, stack, key: await stack.createKey("bench", 1_000_000) });
  } finally {
    await stack.stop();
  }
}

const section = async (name: string, fn: () => Promise<unknown>) => {
  if (!sections.has(name)) return;
  await fn().catch((e: Error) => table.missing(name, e.message.split("\n")[0]!));
};

// The capacity curve's clients all use one key: the per-customer in-flight cap (at least 4 by default) would refuse
// some of 8 clients and measure the cap instead of the stack.
const UNCAPPED = { CUSTOMER_MAX_IN_FLIGHT: "1000" };

try {
  // BENCH_BUILT=1: the production bundles (`npm run build` first), as the image runs them — on a machine loaded by other
  // work, seven tsx processes compiling their sources at once can miss the stack's 60 s start.
  const built = process.env.BENCH_BUILT === "1";
  const main = () => startStack({ waitForWorkers: ["tag", "zip", "vast", "media"], env: UNCAPPED, built }).catch(async (err: Error) => {
    process.stderr.write(`could not start the stack with every worker (${err.message.split("\n")[0]}); starting the edge only\n`);
    return startStack({ only: ["auth", "report-store", "edge"], env: UNCAPPED });
  });
  if (MAIN_SECTIONS.some((x) => sections.has(x))) await withStack(await main(), async (ctx) => {
    await section("rejects", () => edgeRejects(ctx));
    await section("tag", () => tagVsFloor(ctx, floor));
    await section("animation", () => animationVsFloor(ctx, floor));
    await section("zip", () => zipVsTag(ctx));
    await section("vast", () => vastVsFloor(ctx, vast.url, media));
    // The raw-file scans: video beside a full decode, the image p50, the edge's memory under a 300 MB upload.
    await section("files", async () => {
      await videoFileVsFloor(ctx, await makeVideo1080(dir));
      await imageP50(ctx, dir);
      await uploadRss(ctx, dir);
    });
    await section("a11y", () => accessibilityCost(ctx));
    await section("capacity", async () => {
      floorC = await floorCurve(floor);
      const c = await tagCurve(ctx.stack, ctx.key, `${configLabel(DEFAULT_BROWSERS, DEFAULT_SLOTS)} (default)`, DEFAULT_BROWSERS * DEFAULT_SLOTS);
      curves.push(c);
      addCurveRows(table, c, floorC);
    });
  });
  await section("consent", async () => {
    // Two stacks of their own (the tag path only), one after the other: the default (consent states on), then off.
    const only: ProcessName[] = ["auth", "report-store", "tag-scanner", "edge"];
    let on: ConsentP50s = {};
    let off: ConsentP50s = {};
    await withStack(await startStack({ only, waitForWorkers: ["tag"], env: UNCAPPED }), async (ctx) => { on = await consentP50s(ctx); });
    await withStack(await startStack({ only, waitForWorkers: ["tag"], env: { TAG_CONSENT_STATES: "0", ...UNCAPPED } }), async (ctx) => { off = await consentP50s(ctx); });
    addConsentRows(table, on, off);
  });
  if (sections.has("configs")) {
    for (const { browsers, slots } of CONFIGS) {
      await section("configs", async () => {
        // A fresh tag path per configuration: the harness starts every process with the same env, and only the tag
        // scanner reads these two.
        const stack = await startStack({
          only: ["auth", "report-store", "tag-scanner", "edge"],
          waitForWorkers: ["tag"],
          env: { TAG_SCANNER_BROWSERS: String(browsers), TAG_SCANNER_SLOTS: String(slots), ...UNCAPPED },
        });
        await withStack(stack, async (ctx) => {
          const c = await tagCurve(ctx.stack, ctx.key, configLabel(browsers, slots), browsers * slots);
          curves.push(c);
          addCurveRows(table, c, floorC);
        });
      });
    }
  }
  const best = bestCurve(curves);
  if (best && curves.length > 1) {
    table.add({ figure: "capacity: best configuration on this machine", value: summarize(best), floor: "—", vs: "—" });
  }
  // Room for the deployment's cold-start figure: bench/cold-start.ts, when present, exports coldStart(table).
  const coldStart = new URL("./cold-start.ts", import.meta.url);
  if (sections.has("cold-start") && existsSync(coldStart)) {
    const mod = (await import(pathToFileURL(coldStart.pathname).href)) as { coldStart?: (t: BenchTable) => Promise<void> };
    await section("cold-start", async () => mod.coldStart?.(table));
  }
} finally {
  await floor.close();
  vast.close();
  rmSync(dir, { recursive: true, force: true });
}

clearInterval(sampler);
const during = loads.length ? `; 1-min load average during the run min ${pct(loads, 0).toFixed(1)} / median ${median(loads).toFixed(1)} / max ${pct(loads, 100).toFixed(1)}` : "";
console.log(`${header}; at end ${load()}${during}\n`);
console.log(table.markdown());
if (curves.length > 1) {
  console.log("\nCapacity by configuration (static tag):");
  for (const c of curves) console.log(`  ${summarize(c)}`);
  const best = bestCurve(curves);
  if (best) console.log(`Best here: ${best.label}.`);
}
