import { relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

// Vitest runs the slowest files first only when its results cache knows them; a clean clone (CI) has no cache, so it
// falls back to "larger files first" — and the truth corpus, a 27-line file that scans for 5 minutes, started last,
// leaving one worker idle for minutes at the end. These durations (seconds, measured in CI on the 2-core machine) put
// the long files first; every other file keeps the default order after them. Update the figures when a file's cost
// changes a lot; an unknown or renamed file only loses its head start.
const SECONDS: Record<string, number> = {
  "services/tag-scanner/test/truth/truth.test.ts": 335,
  "services/tag-scanner/test/hostile.test.ts": 210,
  "test/e2e/scans.test.ts": 145,
  "services/tag-scanner/test/render.test.ts": 105,
  "packages/platform/test/durable-results.test.ts": 70,
  "services/tag-scanner/test/accessibility.test.ts": 67,
  "services/tag-scanner/test/privacy.test.ts": 49,
  "test/e2e/internal-doors.test.ts": 43,
  "test/keys-cli.test.ts": 43,
  "test/e2e/reservations.test.ts": 42,
  "test/image.test.ts": 35,
  "services/zip-analyzer/test/corpus-render.test.ts": 33,
  "services/tag-scanner/test/heavy-ad-scan.test.ts": 30,
  // load project (serial): the longest first as well, so a time-out there is found early
  "services/tag-scanner/test/truth/truth-load.test.ts": 166,
  "services/tag-scanner/test/cpu-contention.test.ts": 142,
  "test/e2e/chaos.test.ts": 86,
  // four heavy-ad scans of 16 s tasks and a 32 s ad-frame watch (189 s at load 20-43)
  "services/tag-scanner/test/heavy-ad-chrome-cpu.test.ts": 120,
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
