// Every corpus case through the real scanner, one scan at a time.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cases, differences, expectationOf } from "./corpus.ts";
import { caseJob } from "./fixtures.ts";
import { makeScanner, startFixtures, type Fixtures } from "./fixtures.ts";

let f: Fixtures;
let s: ReturnType<typeof makeScanner>;

beforeAll(async () => {
  f = await startFixtures();
  s = makeScanner(1);
}, 120_000);
afterAll(async () => {
  await s?.close();
  await f?.close();
});

describe("truth corpus, one scan at a time", () => {
  for (const c of cases) {
    it(c.id, async () => {
      const r = await s.scanner.scan(caseJob(c, f));
      const diff = differences(r, expectationOf(c, f));
      expect(diff, `${c.id} (${c.pattern}):\n  ${diff.join("\n  ")}`).toEqual([]);
    }, 120_000);
  }
});
