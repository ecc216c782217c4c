import { relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

// Vitest runs the slowest files first only when its results cache knows them; a clean clone (CI) has no cache, so it
// falls back to "larger files first" — and the truth corpus, a 27-line file that scans for 5 minutes, started last,
// leaving one worker idle for minutes at the end. These durations (seconds, measured in CI on the 2-core machine) put
// the long files first; every other file keeps the default order after them. Update the figures when a file's cost
// changes a lot; an unknown or renamed file only loses its head start.
const SECONDS: Record<string, number> = {
  // suite project (two at a time); the CI runs of 2026-11-27 03:22Z and 03:51Z, the larger of the two (reservations:
  // the green run; truth: 299 s less its 72 s of non-timing rows, now proved in truth-load only)
  "services/tag-scanner/test/truth/truth.test.ts": 227,
  "test/e2e/scans.test.ts": 127,
  "services/tag-scanner/test/hostile.test.ts": 119,
  "services/tag-scanner/test/render.test.ts": 63,
  "test/keys-cli.test.ts": 58,
  "services/tag-scanner/test/accessibility.test.ts": 45,
  "test/e2e/reservations.test.ts": 36,
  "services/tag-scanner/test/privacy.test.ts": 34,
  "services/zip-analyzer/test/corpus-render.test.ts": 34,
  "edge/test/report-page.browser.test.ts": 24,
  "services/media-prober/test/hardening.test.ts": 23,
  "services/media-prober/test/file-worker.test.ts": 21,
  "services/tag-scanner/test/simid.test.ts": 19,
  "test/e2e/file-scans.test.ts": 18,
  "packages/platform/test/dispatch.test.ts": 17,
  "services/media-prober/test/prober.test.ts": 16,
  "services/tag-scanner/test/mraid.test.ts": 14,
  // 13 s in CI with a stack of its own; its built-stack case now runs on e2e/scans' stack (5.3 s here at load 24)
  "test/image.test.ts": 5,
  "services/tag-scanner/test/frame-click.test.ts": 12,
  "services/tag-scanner/test/heavy-ad-scan.test.ts": 11,
  "test/e2e/in-flight-caps.test.ts": 6,
  // load-paired project (two at a time): Heavy Ad on one worker, the other files after each other beside it
  "services/tag-scanner/test/heavy-ad-chrome-cpu.test.ts": 136,
  "services/tag-scanner/test/truth/truth-overload.test.ts": 39,
  "services/tag-scanner/test/accessibility-load.test.ts": 26,
  "test/e2e/upload-memory.test.ts": 18,
  // the longest after Heavy Ad (43-128 s in CI), so it starts beside it and its spread is absorbed there
  "test/e2e/chaos.test.ts": 128,
  // load project (serial): the longest first as well, so a time-out there is found early
  "services/tag-scanner/test/truth/truth-load.test.ts": 194,
  "services/tag-scanner/test/cpu-contention.test.ts": 142,
  "services/tag-scanner/test/cpu-load-render.test.ts": 31,
};

export default class HeavyFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const weight = (f: TestSpecification) => SECONDS[relative(this.ctx.config.root, f.moduleId)] ?? 0;
    // Array.prototype.sort is stable: files of equal weight (all the unknown ones) keep the base order.
    // Within a group, a non-isolated project's files form one block (vitest hands a worker on to the next file only
    // when it is of the same non-isolated project): the known-long isolated files first, then the block (its long
    // files first), then the other isolated files, whose short ones pack the group's end.
    const band = (f: TestSpecification) => (f.project.config.isolate === false ? 1 : weight(f) > 0 ? 0 : 2);
    const out = sorted
      .map((f, i) => ({ f, i }))
      .sort((a, b) => {
        const group = a.f.project.config.sequence.groupOrder - b.f.project.config.sequence.groupOrder;
        return group !== 0 ? group : band(a.f) - band(b.f) || weight(b.f) - weight(a.f) || a.i - b.i;
      })
      .map(({ f }) => f);
    return out;
  }
}
