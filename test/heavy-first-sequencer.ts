import { relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

// Vitest runs the slowest files first only when its results cache knows them; a clean clone (CI) has no cache, so it
// falls back to "larger files first" — and the truth corpus, a 27-line file that scans for 5 minutes, started last,
// leaving one worker idle for minutes at the end. These durations (seconds, measured in CI on the 2-core machine) put
// the long files first; every other file keeps the default order after them. Update the figures when a file's cost
// changes a lot; an unknown or renamed file only loses its head start.
const SECONDS: Record<string, number> = {
  // suite project (two at a time); the CI runs of 2026-11-27 00:14Z and 00:49Z, the larger of the two
  // (truth: 299 s in CI 03:22Z less its 72 s of non-timing rows, now proved in truth-load only)
  "services/tag-scanner/test/truth/truth.test.ts": 227,
  // with the internal doors' cases on its stack since (they took ~20 s of tests beside a stack of their own)
  "test/e2e/scans.test.ts": 220,
  "services/tag-scanner/test/hostile.test.ts": 183,
  "services/tag-scanner/test/render.test.ts": 111,
  "services/tag-scanner/test/privacy.test.ts": 85,
  "test/e2e/in-flight-caps.test.ts": 84,
  "services/tag-scanner/test/accessibility.test.ts": 70,
  "test/keys-cli.test.ts": 65,
  "services/zip-analyzer/test/corpus-render.test.ts": 51,
  "test/e2e/reservations.test.ts": 50,
  "test/image.test.ts": 36,
  "services/tag-scanner/test/frame-click.test.ts": 31,
  "services/tag-scanner/test/mraid.test.ts": 31,
  "edge/test/report-page.browser.test.ts": 29,
  "test/e2e/file-scans.test.ts": 26,
  "services/tag-scanner/test/heavy-ad-scan.test.ts": 26,
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
    const out = sorted
      .map((f, i) => ({ f, i }))
      .sort((a, b) => {
        const group = a.f.project.config.sequence.groupOrder - b.f.project.config.sequence.groupOrder;
        return group !== 0 ? group : weight(b.f) - weight(a.f) || a.i - b.i;
      })
      .map(({ f }) => f);
    return out;
  }
}
