// Every corpus case through the real scanner, one scan at a time.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cases, differences, expectationOf, truthJob } from "./corpus.ts";
import { failureOf, makeScanner, startFixtures, type Fixtures } from "./fixtures.ts";

let f: Fixtures;
let s: ReturnType<typeof makeScanner>;

beforeAll(async () => {
  f = await startFixtures();
  s = makeScanner(1);
  // As a running worker: its browser up and its slot's page prepared (the service warms up when it starts), so the
  // first row's time is the scan's, not Chromium's launch.
  await s.scanner.warmUp();
}, 120_000);
afterAll(async () => {
  await s?.close();
  await f?.close();
});

describe("truth corpus, one scan at a time", () => {
  for (const c of cases) {
    it(c.id, async () => {
      const job = truthJob(c, f);
      const r = await s.scanner.scan(job);
      const diff = differences(r, expectationOf(c, f));
      expect(diff, failureOf(c, diff, job.jobId)).toEqual([]);
    }, 120_000);
  }
});
