import { defineConfig } from "vitest/config";
import HeavyFirstSequencer from "./test/heavy-first-sequencer.ts";

// Integration tests start real NATS, Chromium and ffmpeg; on a 2-core machine two test files at a time is the
// sweet spot (more only adds contention and flakiness).
//
// The files that make load on purpose — the truth corpus at the scanner's full concurrency, the CPU figure beside busy
// loops — and those that measure CPU time alone run after the suite, one at a time. Each is meant to face its own
// load on a busy machine; stacked on each other they made 8 concurrent renders plus ffmpeg and three NATS nodes on
// 2 cores, twice the product's rated load, where the compositor starves for seconds (a GIF's 1 s frame shown 1.7 s
// late, a logo painted 2 s after it arrived) and the truth rows measure that machine rather than the scanner.
const LOAD = [
  "services/tag-scanner/test/truth/truth-load.test.ts",
  // A busy loop beside every core on purpose (issue 21 §3): the cpu figure holds under 2x contention.
  "services/tag-scanner/test/cpu-contention.test.ts",
  // The CPU figure's known truths (10 % of the reference core, a static banner near 0) are CPU time on the renderer:
  // beside another file's browser on 2 cores the same work read 20.3 % (bound 16) in CI, so they run alone.
  "services/tag-scanner/test/cpu-load-render.test.ts",
];
// Heavy too, but each answer is a bound that holds on a starved host (or says it is one), and none is a timing of its
// own: these run two at a time after the suite, before the files above. Alone, Heavy Ad's busy creative held one core
// of two for its 133 s (CI 2026-11-27) while the other waited; the overload rows and the upload now run beside it.
const LOAD_PAIRED = [
  // Creatives busy 90 % of every 100 ms, or in one 16 s task (or endless), in a frame Chrome tags as an ad (issue 21
  // §4): Chrome counts task wall time, which contention does not shorten; a starved thread is marked a lower bound.
  "services/tag-scanner/test/heavy-ad-chrome-cpu.test.ts",
  // Busy loops on every core on purpose (issue 21 §2): 15 rows, one per kind of motion, 4 at a time (~130 s), each
  // right or marked low-confidence; CVA_TRUTH_ALL=1 runs the whole corpus so.
  "services/tag-scanner/test/truth/truth-overload.test.ts",
  // 300 MB through the edge into the uploads bucket, its RSS sampled (issue 19): memory, not time.
  "test/e2e/upload-memory.test.ts",
  // The whole product under faults (SIGKILLs): what it proves is counts — nothing lost, charged once, no impression
  // fired twice, no reservation held — with each client's retry budget (150 s) a bound. It ran in `load`, alone, 43-45 s
  // in the last CI runs, while Heavy Ad here held one core for 130 s and the other worker had 56 s of work: beside it,
  // it costs no wall time. It never ran beside truth-load (the stacking the note above is about).
  "test/e2e/chaos.test.ts",
  // Two 20 s renders at once: the motion and pause-control rows (issue 25). Bounds a starved host only lengthens (over
  // 15 s of motion in a 20 s loop, motion over 5 s) and what the page holds (a pause button or none), in 40 s of
  // render: 23 s alone in `load`; here it fits in the 130 s beside Heavy Ad with the files above (56 + 44 s, 123 s with it).
  "services/tag-scanner/test/accessibility-load.test.ts",
];

// Files that only compute — no server, browser or process left running (an ffprobe awaited to its end is fine), no
// mocked module, no environment variable set — and spend more of their time importing the product's modules (~1 s of
// CPU each) than testing. They run first, in workers that keep their modules from one file to the next (isolate:
// false): on 20 of them, 11 s of CPU instead of 32 s. A file that leaves a process running (esbuild's service included:
// privacy-units builds the CMP libraries), mocks a module or sets an env var belongs in the suite (isolated) instead:
// move it out. `npx vitest run <file>` finds a file in either project (`--project suite` no longer lists these);
// test/structure.test.ts stays in the suite, where the helpers run it.
const UNITS = [
  "edge/test/accessibility-view.test.ts", "edge/test/admission.test.ts", "edge/test/console.test.ts",
  "edge/test/cpu-view.test.ts", "edge/test/file-views.test.ts", "edge/test/grpc-errors.test.ts",
  "edge/test/grpc-hostile.test.ts", "edge/test/heavy-ad-view.test.ts", "edge/test/media-accessibility-view.test.ts",
  "edge/test/openapi.test.ts", "edge/test/report-page.test.ts", "edge/test/workspace-settings.test.ts",
  "packages/cli/test/formats.test.ts", "packages/creative-kind/test/detect.test.ts",
  "packages/imaging/test/gif-raster.test.ts", "packages/imaging/test/image-animation.test.ts",
  "packages/platform/test/child-job.test.ts", "packages/platform/test/cluster-forming.test.ts",
  "packages/platform/test/corpus.test.ts", "packages/platform/test/credentials.test.ts",
  "packages/platform/test/dns-resolver.test.ts", "packages/platform/test/domain-errors.test.ts",
  "packages/platform/test/locations.test.ts", "packages/platform/test/outbound-policy.test.ts",
  "packages/platform/test/outbound-ports.test.ts", "packages/platform/test/scanner-process.test.ts",
  "packages/spec-sets/test/cpu.test.ts", "packages/spec-sets/test/data.test.ts",
  "packages/spec-sets/test/engine.test.ts", "packages/spec-sets/test/file-checks.test.ts",
  "packages/spec-sets/test/wcag.test.ts", "services/media-prober/test/ffprobe-fallback.test.ts",
  "services/media-prober/test/file-units.test.ts", "services/media-prober/test/image-units.test.ts",
  "services/media-prober/test/passes.test.ts", "services/media-prober/test/units.test.ts",
  "services/tag-scanner/test/axe-subset.test.ts", "services/tag-scanner/test/cdp-transport.test.ts",
  "services/tag-scanner/test/cpu-load.test.ts", "services/tag-scanner/test/fields.test.ts",
  "services/tag-scanner/test/film-strip.test.ts", "services/tag-scanner/test/gatherer.test.ts",
  "services/tag-scanner/test/heavy-ad-trigger.test.ts", "services/tag-scanner/test/network-events.test.ts",
  "services/tag-scanner/test/page-origin.test.ts", "services/tag-scanner/test/render-watch.test.ts",
  "services/tag-scanner/test/scheduled-motion-end.test.ts", "services/tag-scanner/test/svg-animation.test.ts",
  "services/tag-scanner/test/util.test.ts", "services/vast-analyzer/test/creatives.test.ts",
  "services/vast-analyzer/test/lint-catalogue.test.ts", "services/vast-analyzer/test/lint-real.test.ts",
  "services/vast-analyzer/test/lint-report.test.ts", "services/vast-analyzer/test/simid.test.ts",
  "services/vast-analyzer/test/verifications.test.ts", "services/zip-analyzer/test/extract.test.ts",
  "services/zip-analyzer/test/image-reencode.test.ts", "services/zip-analyzer/test/pixel-gate.test.ts",
  "services/zip-analyzer/test/render-via-dispatcher.test.ts",
];

// Suite files that start browsers, NATS, ffmpeg or servers and stop them, and spend ~2 s of CPU importing the product's
// modules before they test anything (the tag scanner's graph, the edge's, a service's): they run in the suite's group
// (two at a time, beside the isolated files) in workers that keep those modules from one file to the next (isolate:
// false). A/B, the same 72 files isolated and shared at once for 18 min at load ~40-48 (CVA_TEST_CPU_LOG): a file after
// another in its worker spent 3-5 CPU-s less in its worker (privacy 12.0 -> 7.2, report-page.browser 11.2 -> 7.4, simid
// 4.7 -> 1.9, media file-worker 4.2 -> 1.0), and the shared run finished 15 files where the isolated one finished 8;
// importing 4 tag-scanner files alone: 9.8 CPU-s instead of 17.0; 10 of the smaller files (7 tag-scanner, 3 edge),
// isolated and shared alternately, twice, at load 17-25: 69.2 / 73.3 CPU-s against 61.0 / 59.0 for the whole run
// (-1.1 CPU-s a file), all passing. Unlike `units`, each file's
// leftovers are still killed when it ends (the process guard's per-file kill): none of these keeps a helper process
// for the files after it. Not here: a file that mocks a module, sets an env var, bundles with esbuild (its service
// lives in the worker), kills or starves its browser on purpose (hostile, browser-loss), starts whole stacks (e2e:
// long, and nothing to share), proves the guard itself, or is the truth corpus.
const SHARED = [
  "edge/test/console.browser.test.ts", "edge/test/errors.test.ts", "edge/test/file-uploads.test.ts",
  "edge/test/film-strip-view.test.ts", "edge/test/grpc.test.ts", "edge/test/report-page.browser.test.ts",
  "edge/test/reports.test.ts", "edge/test/reservations.test.ts", "edge/test/scan-body-reader.test.ts",
  "edge/test/scan-results.test.ts", "edge/test/validation.test.ts", "edge/test/views.test.ts",
  "packages/cli/test/cli.test.ts", "packages/imaging/test/border.test.ts", "packages/imaging/test/flash.test.ts",
  "packages/platform/test/dispatch.test.ts", "packages/platform/test/durable-results.test.ts",
  "packages/platform/test/nats-auth.test.ts", "packages/platform/test/outbound-fetch.test.ts",
  "packages/platform/test/outbound-proxy.test.ts", "packages/platform/test/result-overwrite.test.ts",
  "packages/platform/test/uploads.test.ts", "services/auth/test/replicated-ledger.test.ts",
  "services/auth/test/reservations.test.ts", "services/auth/test/service.test.ts", "services/auth/test/store.test.ts",
  "services/media-prober/test/file-flash-follow.test.ts", "services/media-prober/test/file-prober.test.ts",
  "services/media-prober/test/file-worker.test.ts", "services/media-prober/test/image-hostile.test.ts",
  "services/media-prober/test/image-truth.test.ts", "services/media-prober/test/image-worker.test.ts",
  "services/media-prober/test/media-accessibility.test.ts", "services/media-prober/test/poster.test.ts",
  "services/media-prober/test/prober.test.ts", "services/report-store/test/service.test.ts",
  "services/report-store/test/store.test.ts", "services/report-store/test/workspace-settings.test.ts",
  "services/tag-scanner/test/accessibility.test.ts", "services/tag-scanner/test/bundle-frame.test.ts",
  "services/tag-scanner/test/film-strip-browser.test.ts", "services/tag-scanner/test/forgery.test.ts",
  "services/tag-scanner/test/frame-click.test.ts", "services/tag-scanner/test/heavy-ad-chrome.test.ts",
  "services/tag-scanner/test/heavy-ad-scan.test.ts", "services/tag-scanner/test/image-work.test.ts",
  "services/tag-scanner/test/layout.test.ts", "services/tag-scanner/test/mraid.test.ts",
  "services/tag-scanner/test/page-scripts.test.ts", "services/tag-scanner/test/privacy.test.ts",
  "services/tag-scanner/test/render.test.ts", "services/tag-scanner/test/shared-pool.test.ts", "services/tag-scanner/test/simid.test.ts",
  "services/tag-scanner/test/tls.test.ts", "services/vast-analyzer/test/analyzer.test.ts",
  "services/vast-analyzer/test/budgets.test.ts", "services/vast-analyzer/test/corpus-verdicts.test.ts",
  "services/vast-analyzer/test/corpus.test.ts", "services/vast-analyzer/test/depth.test.ts",
  "services/vast-analyzer/test/dispatch.test.ts", "services/vast-analyzer/test/impressions-once.test.ts",
  "services/vast-analyzer/test/lint-corpus.test.ts", "services/vast-analyzer/test/simid-dispatch.test.ts",
  "services/vast-analyzer/test/trackers.test.ts", "services/zip-analyzer/test/analyzer.test.ts",
  "services/zip-analyzer/test/corpus-render.test.ts", "services/zip-analyzer/test/corpus.test.ts",
  "services/zip-analyzer/test/fields.test.ts", "services/zip-analyzer/test/film-strip-render.test.ts",
  "services/zip-analyzer/test/image-bomb.test.ts", "services/zip-analyzer/test/v3-known-truth.test.ts",
  "test/file-verdicts.test.ts", "test/vast-flash-verdicts.test.ts",
];

export default defineConfig({
  test: {
    pool: "forks",
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ["default"],
    sequence: { sequencer: HeavyFirstSequencer },
    // Kill-on-exit: what a file started and left running (a stack whose afterAll timed out, a browser, nats-server)
    // is killed when its worker stops, and a watchdog kills what a worker killed outright left (test/harness/process-guard).
    globalSetup: ["test/harness/process-guard/global.ts"],
    // CVA_TEST_CPU_LOG=<file>: each test file's wall and CPU time, a JSON line per file (test/harness/cpu-log.ts).
    setupFiles: ["test/harness/process-guard/worker.ts", "test/harness/cpu-log.ts"],
    projects: [
      {
        extends: true,
        test: {
          name: "units",
          include: UNITS,
          isolate: false,
          // The process guard kills what a file left running when the worker stops, not after each file: a worker
          // shared by files may hold a helper process of its own for all of them (esbuild's service).
          env: { CVA_PROCESS_GUARD_SHARED_WORKER: "1" },
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: "suite",
          include: ["packages/*/test/**/*.test.ts", "services/*/test/**/*.test.ts", "edge/test/**/*.test.ts", "test/**/*.test.ts"],
          exclude: [...UNITS, ...SHARED, ...LOAD, ...LOAD_PAIRED, "**/node_modules/**"],
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: {
          // In the suite's group (same two workers, same time), files kept contiguous by the sequencer: vitest hands a
          // worker on to the next file only when that file is of the same non-isolated project.
          name: "suite-shared",
          include: SHARED,
          isolate: false,
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: {
          name: "load-paired",
          include: LOAD_PAIRED,
          maxWorkers: 2,
          sequence: { groupOrder: 2 },
        },
      },
      {
        extends: true,
        test: {
          name: "load",
          include: LOAD,
          maxWorkers: 1,
          sequence: { groupOrder: 3 },
        },
      },
    ],
  },
});
