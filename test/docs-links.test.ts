// The README is the front door and docs/ the rest of the house: every relative link in them leads somewhere (the file
// exists; a #fragment into a Markdown file names one of its headings), the README's pictures are there, and every
// file "Follow one scan" (docs/design.md) walks through exists — a renamed module must not leave the walk-through stale.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "./harness/stack.ts";

const DOCS = ["README.md", ...readdirSync(join(repoRoot, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`), "packages/cli/README.md", "edge/README.md"];

/** GitHub's anchor of a heading: lower case, punctuation out, spaces to hyphens. */
const slug = (heading: string) => heading.trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, "").replace(/ /g, "-");

function anchorsOf(file: string): Set<string> {
  const text = readFileSync(file, "utf8").replace(/```[\s\S]*?```/g, "");
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) => slug(m[1]!.replace(/`/g, ""))));
}

describe("README and docs", () => {
  it("every relative link and picture resolves, and every #fragment into a Markdown file names one of its headings", () => {
    const broken: string[] = [];
    let checked = 0;
    for (const doc of DOCS) {
      const file = join(repoRoot, doc);
      const text = readFileSync(file, "utf8").replace(/```[\s\S]*?```/g, "");
      for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const href = m[1]!;
        if (/^[a-z]+:/i.test(href)) continue;
        checked++;
        const [path, fragment] = href.split("#") as [string, string | undefined];
        const target = path ? join(dirname(file), path) : file;
        if (!existsSync(target)) broken.push(`${doc}: ${href} (no ${relative(repoRoot, target)})`);
        else if (fragment && target.endsWith(".md") && !anchorsOf(target).has(fragment)) broken.push(`${doc}: ${href} (no heading #${fragment})`);
      }
    }
    expect(broken).toEqual([]);
    expect(checked).toBeGreaterThan(40);
  });

  it("'Follow one scan' names files that exist, and the README links it", () => {
    const design = readFileSync(join(repoRoot, "docs/design.md"), "utf8");
    const section = /### Follow one scan[^\n]*\n([\s\S]*?)\n## /.exec(design)?.[1];
    expect(section, "docs/design.md has its 'Follow one scan' section").toBeDefined();
    const tagScanner = "services/tag-scanner/src";
    const missing: string[] = [];
    const paths = [...section!.matchAll(/`([\w./-]+\.ts|[\w./-]+\/)`/g)].map((m) => m[1]!);
    expect(paths.length).toBeGreaterThan(25);
    for (const p of paths) {
      // Paths are written from the repository root, or inside the tag scanner once step 6 says "In the tag scanner".
      const candidates = [p, join(tagScanner, p), join("edge/src/scan", p), join("edge/src/grpc", p), join("edge/src/validation", p)];
      if (!candidates.some((c) => existsSync(join(repoRoot, c)))) missing.push(p);
    }
    expect(missing).toEqual([]);
    expect(readFileSync(join(repoRoot, "README.md"), "utf8")).toMatch(/\]\(docs\/design\.md#follow-one-scan[^)]*\)/);
  });
});
