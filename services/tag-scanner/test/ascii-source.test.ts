// ascii-source.ts: axe-core's bundle as sent to the scanned frames (the reduced bundle with its non-ASCII characters
// escaped) is the same program as the package's: parsed by TypeScript, both give the same syntax tree, with the same
// cooked strings and identifier names. What axe finds in a browser is pinned by accessibility.test.ts and the truth corpus.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { AXE_RULES } from "../src/gatherers/accessibility.ts";
import { asciiSource } from "../src/gatherers/ascii-source.ts";
import { axeSubset } from "../src/gatherers/axe-subset.ts";

/** The tree as kinds and values: identifiers by name, literals by their cooked value (a regex by its text). */
function shape(src: string): string[] {
  const out: string[] = [];
  const visit = (n: ts.Node) => {
    if (ts.isIdentifier(n) || ts.isPrivateIdentifier(n)) out.push(`id:${n.text}`);
    else if (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n) || ts.isTemplateHead(n) || ts.isTemplateMiddle(n) || ts.isTemplateTail(n)) out.push(`${n.kind}:${n.text}`);
    else if (ts.isRegularExpressionLiteral(n) || ts.isNumericLiteral(n) || ts.isBigIntLiteral(n)) out.push(`${n.kind}:${n.text}`);
    else out.push(String(n.kind));
    ts.forEachChild(n, visit);
  };
  const file = ts.createSourceFile("axe.js", src, ts.ScriptTarget.Latest, false, ts.ScriptKind.JS);
  expect((file as unknown as { parseDiagnostics: unknown[] }).parseDiagnostics).toEqual([]);
  visit(file);
  return out;
}

describe("ascii source", () => {
  const full = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
  const sub = axeSubset(full, AXE_RULES);

  it("sends axe's reduced bundle as 7-bit ASCII, the same program as the package's bundle reduced", () => {
    const sent = asciiSource(sub);
    expect(/[^\x00-\x7e]/.test(sent)).toBe(false);
    expect(/[^\x00-\x7e]/.test(sub)).toBe(true); // axe-core 4.14.1 has 17 (©, –, …, U+FFFD, ®, ε)
    expect(shape(sent)).toEqual(shape(sub));
  }, 60_000);

  it("escapes each character as itself, and refuses astral ones", () => {
    expect(asciiSource(`a.ε="© –";`)).toBe(String.raw`a.\u03b5="\u00a9 \u2013";`);
    expect(new Function(`const a={};${asciiSource(`a.ε="© –";`)}return a;`)()).toEqual({ ε: "© –" });
    expect(() => asciiSource(`"😀"`)).toThrow(/BMP/);
  });
});
