// The suite's kill-on-exit guard (test/harness/process-guard): a run of its own whose files leave processes behind —
// one whose afterAll times out, one whose worker is killed outright — ends with none of them running, and each is
// gone while the run goes on (before the next file), not only at its end.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { alive } from "./harness/process-guard/tree.ts";
import { repoRoot } from "./harness/stack.ts";

const dir = mkdtempSync(join(tmpdir(), "cva-process-guard-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it("leaves no process of a timed-out afterAll or a killed worker running, during the run or after it", () => {
  const pidsFile = join(dir, "pids.txt");
  const reportFile = join(dir, "report.json");
  // A run of its own: none of this worker's VITEST_* variables (pool, worker id) carried into it.
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("VITEST")));
  const run = spawnSync(
    process.execPath,
    [join(repoRoot, "node_modules/vitest/vitest.mjs"), "run", "--config", "test/harness/process-guard/fixture/vitest.config.ts", "--reporter=json", `--outputFile=${reportFile}`],
    { cwd: repoRoot, env: { ...env, GUARD_PIDS_FILE: pidsFile }, encoding: "utf8", timeout: 120_000 },
  );
  const out = `${run.stdout}\n${run.stderr}`;
  // Red on purpose: a's afterAll timed out and b's worker died.
  expect(run.status, out).toBe(1);
  const results = JSON.parse(readFileSync(reportFile, "utf8")) as { testResults: { name: string; assertionResults: { title: string; status: string }[] }[] };
  const status = (file: string, title: string) =>
    results.testResults.find((r) => r.name.endsWith(file))?.assertionResults.find((a) => a.title === title)?.status;
  expect(status("a-hook-times-out.fixture.ts", "started its processes"), out).toBe("passed");
  expect(status("c-after-kill.fixture.ts", "finds nothing left of the file whose afterAll timed out"), out).toBe("passed");
  expect(status("c-after-kill.fixture.ts", "finds nothing left of the worker killed outright"), out).toBe("passed");

  const procs = readFileSync(pidsFile, "utf8")
    .trim()
    .split("\n")
    .map((l) => ({ tag: l.split(" ")[0], pid: Number(l.split(" ")[1]), start: l.split(" ")[2]! }));
  expect(procs.filter((p) => p.tag === "a")).toHaveLength(3);
  expect(procs.filter((p) => p.tag === "b")).toHaveLength(3);
  expect(procs.filter(alive)).toEqual([]);
}, 150_000);
