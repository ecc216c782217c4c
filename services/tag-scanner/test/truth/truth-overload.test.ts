// A subset of the corpus scanned while busy loops hold every core (and as many again): the machine far beyond its
// rated load. Each time-based field must be right, or marked low-confidence in `measurement` — never the starved
// machine reported as the creative's behaviour. Everything else must be right regardless.
import { spawn, type ChildProcess } from "node:child_process";
import { cpus } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cases, differences, expectationOf, truthJob } from "./corpus.ts";
import { failureOf, makeScanner, startFixtures, type Fixtures } from "./fixtures.ts";

// One row per kind of timing the corpus has — how its motion starts, runs and ends — rather than all 34 timing rows
// (each long one holds a slot for its whole render): static; a late asset from a slow CDN; CSS animations, a CSS
// transition, an infinite CSS animation stopped by script; a timer slideshow; rAF with a 5 s hold; a GSAP timeline;
// canvas; inline SMIL; SMIL in an SVG <img> and a CSS background (the fetch of the image starts its timeline);
// GIF; a video; and one endless loop. 15 rows, 4 at a time (the six rows one at a time took ~120-180 s): measured
// 132 s with the host at load ~20 and 293 s at load 38-51 from other sessions (2 cores); beside Heavy Ad's 130 s in
// vitest.config.ts LOAD_PAIRED.
// video-once: a media timeline the machine can slow (truth-load read 4 433 against ≤ 4 200 at load > 20, unmarked).
const ROWS = [
  "static-banner", "static-banner-slow-logo", "storyboard-css", "css-transition-after-timeout", "css-infinite-stopped-3rd-iteration",
  "slideshow-timeout", "raf-storyboard-hold-5s", "gsap-finite-repeat", "canvas-2s", "svg-smil-delayed", "svg-img-smil",
  "svg-background-smil-chain", "gif-once", "video-once", "gif-loop",
];
// CVA_TRUTH_ALL=1: every row of the corpus under the same overload (as truth.test.ts runs every row alone with it):
// 82/82 twice, 104 s on a quiet host (2026-11-27). Not the default: beside Heavy Ad in CI, its longer busy loops
// starved that file's endless-task case out of its "still busy at the end" reading.
const ALL = process.env.CVA_TRUTH_ALL === "1";
/** Scans in flight at once: the scanner's default slots, as the worker where svg-img-smil read 4 007 ms unmarked. */
const SLOTS = 4;
/** A static inline banner paints within this on a sound machine (time_to_visual_start's truth, with room). */
const TTVS_MAX_MS = 1_500;

// The tests run concurrently (describe.concurrent, vitest's maxConcurrency 5); at most SLOTS scans are started.
let free = SLOTS;
const waiting: Array<() => void> = [];
const slot = () => new Promise<void>((r) => { if (free > 0) { free--; r(); } else waiting.push(r); });
const release = () => { const next = waiting.shift(); if (next) next(); else free++; };

let f: Fixtures;
let s: ReturnType<typeof makeScanner>;
const busy: ChildProcess[] = [];

beforeAll(async () => {
  f = await startFixtures();
  s = makeScanner(SLOTS);
  await s.scanner.warmUp();
  // Two busy loops per core, started once the browser is up: the scans run starved, not the set-up.
  for (let i = 0; i < 2 * cpus().length; i++) busy.push(spawn(process.execPath, ["-e", "for(;;){}"], { stdio: "ignore" }));
}, 120_000);
afterAll(async () => {
  for (const p of busy) p.kill("SIGKILL");
  await s?.close();
  await f?.close();
});

describe.concurrent("truth corpus under deliberate overload, 4 scans at a time: right, or marked low-confidence", () => {
  for (const c of cases.filter((x) => ALL || ROWS.includes(x.id))) {
    it(c.id, async () => {
      // A job is made once a slot is free: an endless row's deadline (truthJob) must not be spent waiting in the queue.
      await slot();
      const job = truthJob(c, f);
      const r = await s.scanner.scan(job).finally(release);
      const low = new Set(r.measurement?.lowConfidenceFields ?? []);
      console.log(`${c.id}: animation_duration ${r.animationDurationMs} time_to_visual_start ${r.timeToVisualStartMs} low ${[...low].join(",") || "-"} (${r.measurement?.reasons.join("; ") ?? ""})`);
      const diff = differences(r, expectationOf(c, f)).filter((d) =>
        !(d.startsWith("animationDurationMs") && low.has("animation_duration")) && !(d.startsWith("landingPage") && low.has("landing_page")));
      const ttvs = Number(r.timeToVisualStartMs);
      if ((ttvs < 0 || ttvs > TTVS_MAX_MS) && !low.has("time_to_visual_start")) diff.push(`timeToVisualStartMs: ${ttvs} and not marked low-confidence`);
      if (low.size > 0 && (r.measurement?.reasons.length ?? 0) === 0) diff.push("measurement: low-confidence fields without a reason");
      expect(diff, failureOf(c, diff, job.jobId)).toEqual([]);
    }, 120_000);
  }
});
