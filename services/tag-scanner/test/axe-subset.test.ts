// The reduced axe-core bundle (gatherers/axe-subset.ts), derived from the pinned package: the engine untouched, the
// rule and check definitions exactly the package's for the rules the report uses, nothing else. What the rules find
// in a browser is pinned by accessibility.test.ts and the truth corpus.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { AXE_RULES } from "../src/gatherers/accessibility.ts";
import { axeSubset } from "../src/gatherers/axe-subset.ts";

const full = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
const LOAD = "_load({";
/** The `_load` argument of a bundle, evaluated (the package's own data). */
function loadArg(src: string): { rules: Array<{ id: string }>; checks: Array<{ id: string }>; data: { rules: object; checks: object } } {
  const start = src.lastIndexOf(LOAD) + LOAD.length - 1;
  const end = src.trimEnd().lastIndexOf(`)}("object"==typeof window`);
  return new Function(`return (${src.slice(start, end)});`)();
}

describe("axe-core subset", () => {
  const sub = axeSubset(full, AXE_RULES);
  const a = loadArg(full);
  const b = loadArg(sub);

  it("keeps the engine as published and only the report's rules", () => {
    const engineEnd = full.lastIndexOf(LOAD);
    expect(sub.slice(0, engineEnd)).toBe(full.slice(0, engineEnd));
    expect(b.rules.map((r) => r.id).sort()).toEqual([...AXE_RULES].sort());
    expect(Object.keys(b.data.rules).sort()).toEqual([...AXE_RULES].sort());
    // Smaller by the other 95 rules' definitions (~85 KB of 654 KB for axe-core 4.14.1).
    expect(sub.length).toBeLessThan(full.length * 0.9);
  });

  it("keeps each kept rule and check exactly as the package defines it", () => {
    for (const r of b.rules) expect(r).toEqual(a.rules.find((x) => x.id === r.id));
    for (const c of b.checks) expect(c).toEqual(a.checks.find((x) => x.id === c.id));
    const used = new Set(b.rules.flatMap((r) => {
      const refs = r as unknown as Record<"any" | "all" | "none", Array<string | { id: string }>>;
      return [...refs.any, ...refs.all, ...refs.none].map((c) => (typeof c === "string" ? c : c.id));
    }));
    expect(b.checks.map((c) => c.id).sort()).toEqual([...used].sort());
    expect(Object.keys(b.data.checks).sort()).toEqual([...used].sort());
    expect(b.data.checks).toEqual(Object.fromEntries(Object.entries(a.data.checks).filter(([k]) => used.has(k))));
  });

  it("refuses a bundle of another shape, or a rule it does not have, by name", () => {
    expect(() => axeSubset("var axe={};", AXE_RULES)).toThrow(/_load/);
    expect(() => axeSubset(full, ["no-such-rule"])).toThrow(/no-such-rule/);
  });
});
