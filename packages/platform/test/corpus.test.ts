// The corpus switch: where tests look for the shared corpus, and what a missing corpus does — a skip that says why
// outside CI, a failure under CVA_REQUIRE_CORPUS=1 (.ci/run). Decided on explicit environments, so this file passes
// the same in CI and in a fresh clone.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { corpusCase, corpusDir, CorpusMissingError, corpusPath, corpusRoot } from "@cva/platform/testing/index.ts";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const fake = mkdtempSync(path.join(tmpdir(), "cva-corpus-"));
mkdirSync(path.join(fake, "html5"));
afterAll(() => rmSync(fake, { recursive: true, force: true }));

describe("the corpus directory", () => {
  it("is ../shared/corpus beside the repository (or, in a clone, beside the checkout it came from) unless CVA_CORPUS_DIR says", () => {
    const beside = path.resolve(repoRoot, "../shared/corpus");
    if (existsSync(beside)) expect(corpusRoot({})).toBe(beside);
    else expect(corpusRoot({})).toMatch(/[\\/]shared[\\/]corpus$/);
    expect(corpusRoot({ CVA_CORPUS_DIR: fake })).toBe(fake);
    expect(corpusPath("vast/iab-vast-schemas", { CVA_CORPUS_DIR: fake })).toBe(path.join(fake, "vast/iab-vast-schemas"));
  });

  it("runs a part that is there, whether or not it is required", () => {
    for (const CVA_REQUIRE_CORPUS of [undefined, "1"]) {
      const env = { CVA_CORPUS_DIR: fake, CVA_REQUIRE_CORPUS };
      expect(corpusCase("html5", env)).toEqual({ run: path.join(fake, "html5") });
      expect(corpusDir("html5", env)).toBe(path.join(fake, "html5"));
    }
  });

  it("skips a missing part outside CI, saying where it looked and how to point elsewhere", () => {
    const env = { CVA_CORPUS_DIR: fake };
    const c = corpusCase("media", env);
    expect(c).toEqual({ skip: expect.stringContaining(path.join(fake, "media")) });
    expect("skip" in c && c.skip).toMatch(/CVA_CORPUS_DIR/);
    expect(corpusDir("media", env)).toBeUndefined();
  });

  it("fails on a missing part under CVA_REQUIRE_CORPUS=1 (CI)", () => {
    const env = { CVA_CORPUS_DIR: fake, CVA_REQUIRE_CORPUS: "1" };
    const c = corpusCase("media", env);
    expect("fail" in c && c.fail).toBeInstanceOf(CorpusMissingError);
    expect("fail" in c && c.fail.message).toMatch(/CVA_REQUIRE_CORPUS=1/);
    expect(() => corpusDir("media", env)).toThrow(CorpusMissingError);
    // Only "1" turns it on: an empty or other value is the default, a visible skip.
    expect(corpusCase("media", { CVA_CORPUS_DIR: fake, CVA_REQUIRE_CORPUS: "" })).toHaveProperty("skip");
  });
});
