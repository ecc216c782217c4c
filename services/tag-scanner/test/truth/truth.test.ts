// Every corpus case through the real scanner, one scan at a time.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tagJob } from "../helpers.ts";
import { cases, differences, expectationOf } from "./corpus.ts";
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
      const r = await s.scanner.scan(tagJob(c.html(f), { landing: c.landing ?? false }));
      const diff = differences(r, expectationOf(c, f));
      expect(diff, `${c.id} (${c.pattern}):\n  ${diff.join("\n  ")}`).toEqual([]);
    }, 120_000);
  }
});
