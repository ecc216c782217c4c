import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, it, type TestContext } from "vitest";

// The shared corpus of real third-party creatives (VAST, HTML5 banners, ad tags, media) is not in the repository
// (other people's files, some without any licence grant): tests read it from beside the clone, `<repo>/../shared/corpus`, or from
// CVA_CORPUS_DIR. Outside CI a missing corpus skips its suites visibly — a skipped test that says why and where it
// looked. CI sets CVA_REQUIRE_CORPUS=1 (.ci/run): there a missing corpus fails, so a moved corpus or a renamed folder
// cannot turn a dozen suites into silent passes.

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");

/**
 * The checkout this one was cloned from, when it is a local path: a clean clone made for CI (`git clone /work/main
 * /tmp/x`) sits elsewhere, and its corpus is the one beside the repository it came from.
 */
function originCheckout(): string | undefined {
  try {
    const url = execFileSync("git", ["-C", repoRoot, "config", "--get", "remote.origin.url"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
    const local = url.startsWith("file://") ? fileURLToPath(url) : url;
    return path.isAbsolute(local) ? local.replace(/\/\.git\/?$/, "") : undefined;
  } catch {
    return undefined;
  }
}

let beside: string | undefined;
/**
 * Where the corpus is: CVA_CORPUS_DIR; else `../shared/corpus` beside the repository root; else, in a clone of a local
 * checkout, beside that checkout.
 */
export function corpusRoot(env: NodeJS.ProcessEnv = process.env): string {
  if (env.CVA_CORPUS_DIR) return path.resolve(env.CVA_CORPUS_DIR);
  if (beside === undefined) {
    const own = path.resolve(repoRoot, "../shared/corpus");
    const origin = existsSync(own) ? undefined : originCheckout();
    const theirs = origin ? path.resolve(origin, "../shared/corpus") : undefined;
    beside = theirs && existsSync(theirs) ? theirs : own;
  }
  return beside;
}

/** True when a missing corpus is a failure (CI: CVA_REQUIRE_CORPUS=1). */
export function corpusRequired(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.CVA_REQUIRE_CORPUS === "1";
}

/** The path of `rel` inside the corpus, whether or not it is there. */
export function corpusPath(rel = "", env: NodeJS.ProcessEnv = process.env): string {
  return path.join(corpusRoot(env), rel);
}

/** Why a corpus test cannot run: names the path looked at and how to point the tests elsewhere. */
export function corpusAbsence(rel: string, env: NodeJS.ProcessEnv = process.env): string {
  return `the shared corpus is not at ${corpusPath(rel, env)} (set CVA_CORPUS_DIR to the corpus folder)`;
}

export class CorpusMissingError extends Error {
  constructor(rel: string, env: NodeJS.ProcessEnv = process.env) {
    super(`${corpusAbsence(rel, env)}; CVA_REQUIRE_CORPUS=1 makes that a failure`);
    this.name = "CorpusMissingError";
  }
}

/**
 * The corpus file or folder `rel` (e.g. "html5", "vast/iab-vast-schemas") when it exists, else undefined — or, when
 * the corpus is required, a CorpusMissingError. For what uses the corpus when it is there (the IAB schemas given to
 * the VAST analyzer); suites that need it use describeWithCorpus / itWithCorpus.
 */
export function corpusDir(rel: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const p = corpusPath(rel, env);
  if (existsSync(p)) return p;
  if (corpusRequired(env)) throw new CorpusMissingError(rel, env);
  return undefined;
}

/** What a test over the corpus part `rel` does: run on its path, skip saying why, or fail (the corpus is required). */
export type CorpusCase = { run: string } | { skip: string } | { fail: CorpusMissingError };

export function corpusCase(rel: string, env: NodeJS.ProcessEnv = process.env): CorpusCase {
  const p = corpusPath(rel, env);
  if (existsSync(p)) return { run: p };
  return corpusRequired(env) ? { fail: new CorpusMissingError(rel, env) } : { skip: corpusAbsence(rel, env) };
}

/** The test that stands in for a missing corpus part: a visible skip, or a failure in CI. */
function standIn(c: { skip: string } | { fail: CorpusMissingError }): (ctx: TestContext) => void {
  return (ctx) => {
    if ("fail" in c) throw c.fail;
    // The reason is the skip's note (verbose and JSON reporters) and a stderr line (the default reporter).
    console.warn(`skipped: ${c.skip}`);
    ctx.skip(c.skip);
  };
}

/**
 * `describe(name, ...)` over the corpus part `rel`, its path given to the body (`timeout`: its tests' default). When `rel` is missing the body is
 * not collected at all (its hooks would start browsers for nothing): one test stands in, skipped with the reason,
 * or failing when the corpus is required.
 */
export function describeWithCorpus(name: string, rel: string, body: (dir: string) => void, timeout?: number): void {
  const c = corpusCase(rel);
  if ("run" in c) describe(name, () => body(c.run), timeout);
  else describe(name, () => it(`needs the shared corpus (${rel})`, standIn(c)));
}

/** `it(name, ...)` over the corpus part `rel`; skipped with the reason when it is missing, failing when required. */
export function itWithCorpus(name: string, rel: string, fn: (dir: string) => unknown, timeout?: number): void {
  const c = corpusCase(rel);
  if ("run" in c) it(name, async () => void (await fn(c.run)), timeout);
  else it(name, standIn(c));
}
