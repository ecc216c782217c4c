import { describe, expect, it } from "vitest";
import { lintDocument, RULES } from "../src/lint/index.ts";
import { parseXmlDocument } from "../src/xml-tree.ts";
import { baseDoc, VERSIONS, type BaseName } from "./lint/bases.ts";
import { CASES } from "./lint/cases.ts";
import { apply } from "./lint/edits.ts";

// The per-rule corpus: every registered rule has a document that triggers it and a close variant that does not, and
// each triggering document gives exactly that rule's findings — no other rule fires on it, so a defect is named once.

function lint(xml: string) {
  const parsed = parseXmlDocument(xml, { maxDepth: 64, maxElements: 20_000 });
  if (!parsed.ok) throw new Error(`the case document does not parse: ${parsed.reason}`);
  const r = lintDocument(parsed.root);
  expect(r.failedRules).toEqual([]);
  return r;
}

const describeFindings = (r: ReturnType<typeof lint>) => r.findings.map((f) => `${f.rule} @ ${f.path}:${f.line}: ${f.message}`);

describe("lint corpus", () => {
  const bases: BaseName[] = [...VERSIONS.flatMap((v) => [`inline-${v}`, `wrapper-${v}`] as BaseName[]), "vmap"];
  it.each(bases)("base %s is clean: no finding at all", (name) => {
    expect(describeFindings(lint(baseDoc(name)))).toEqual([]);
  });

  it("every registered rule has a case, and every case names a registered rule once", () => {
    const ids = RULES.map((r) => r.id);
    const cased = CASES.map((c) => c.rule);
    expect(new Set(cased).size).toBe(cased.length);
    expect([...ids].sort()).toEqual([...cased].sort());
  });

  it.each(CASES.map((c) => [c.rule, c] as const))("%s: the case triggers exactly it, the close variant nothing", (_id, c) => {
    const rule = RULES.find((r) => r.id === c.rule)!;
    const bad = lint(apply(baseDoc(c.base), c.bad));
    const fired = [...new Set(bad.findings.map((f) => f.rule))];
    expect(fired, describeFindings(bad).join("\n")).toEqual([c.rule]);
    for (const f of bad.findings) {
      expect(f).toMatchObject({ severity: rule.severity, group: rule.group, spec: rule.spec });
      expect(f.path).toMatch(/^\/(VAST|VMAP|VideoAdServingTemplate)/);
      expect(f.line).toBeGreaterThan(0);
      expect(f.message.length).toBeGreaterThan(20);
    }
    // The case's version is one the rule applies to (VAST 1.0 has its one rule).
    if (c.base.startsWith("inline-") || c.base.startsWith("wrapper-")) expect(rule.versions).toContain(c.base.split("-")[1]);
    const good = lint(apply(baseDoc(c.goodBase ?? c.base), c.good));
    expect(describeFindings(good)).toEqual([]);
  });
});
