// The whole corpus with four scans in flight at once on one browser, against the same truth: a loaded machine may
// blur timings within the tolerances, but must not change what is measured.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TagReport } from "@cva/contracts";
import { cases, differences, expectationOf, truthJob } from "./corpus.ts";
import { failureOf, makeScanner, startFixtures, type Fixtures } from "./fixtures.ts";

const IN_FLIGHT = 4;
let f: Fixtures;
let s: ReturnType<typeof makeScanner>;
const reports = new Map<string, Promise<TagReport>>();
const jobIds = new Map<string, string>();

beforeAll(async () => {
  f = await startFixtures();
  s = makeScanner(IN_FLIGHT);
  // As a running worker: its browser up and a page prepared per slot (the service warms up when it starts).
  await s.scanner.warmUp();
  // Our own limiter rather than the pool's queue: a scan's render deadline starts when scan() is called, so a scan
  // waiting for a slot would lose render time.
  const queue = [...cases];
  const settled = new Map<string, (r: Promise<TagReport>) => void>();
  for (const c of cases) {
    const p = new Promise<TagReport>((resolve) => settled.set(c.id, resolve));
    p.catch(() => {}); // a failed scan is reported by its own test, not as an unhandled rejection
    reports.set(c.id, p);
  }
  const worker = async () => {
    for (let c = queue.shift(); c; c = queue.shift()) {
      const job = c;
      const scanJob = truthJob(job, f);
      jobIds.set(job.id, scanJob.jobId);
      const r = Promise.resolve().then(() => s.scanner.scan(scanJob));
      settled.get(c.id)!(r);
      await r.catch(() => {});
    }
  };
  for (let i = 0; i < IN_FLIGHT; i++) void worker();
}, 120_000);
afterAll(async () => {
  await Promise.allSettled(reports.values());
  await s?.close();
  await f?.close();
});

// Open regression, skipped visibly (it passes alone in truth.test.ts): in the first batch of four, the SMIL badge's
// first paint is held to 928–980 ms (was 169–186 ms last session), so its parse-timed animation reads 1 821–1 989
// against 2 000–3 700, and the scan does not mark itself low-confidence. Found at the end of session 6 after the
// issue 18/20/21 merges; the next session must find what holds first-batch paints back and delete this entry.
const KNOWN_LOAD_REGRESSIONS = new Set<string>([]);

describe(`truth corpus, ${IN_FLIGHT} scans in flight`, () => {
  for (const c of cases) {
    // Waits for this case's scan, which may still be queued behind up to a few slow (endless) cases.
    (KNOWN_LOAD_REGRESSIONS.has(c.id) ? it.skip : it)(c.id, async () => {
      const r = await reports.get(c.id)!;
      // As under deliberate overload (truth-overload.test.ts): a time-based field the scanner itself marked
      // low-confidence, with its reason, is an honest answer on a starved machine — never a silently wrong one.
      const low = new Set(r.measurement?.lowConfidenceFields ?? []);
      const marked = low.size > 0 && (r.measurement?.reasons.length ?? 0) > 0;
      const diff = differences(r, expectationOf(c, f)).filter((d) => !(marked && d.startsWith("animationDurationMs") && low.has("animation_duration")));
      expect(diff, failureOf(c, diff, jobIds.get(c.id) ?? "")).toEqual([]);
    }, 300_000);
  }
});
