import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { renderCatalogue } from "../src/lint/catalogue.ts";
import { LINT_GROUPS, RULES } from "../src/lint/index.ts";

const file = fileURLToPath(new URL("../LINT-RULES.md", import.meta.url));

describe("lint rule catalogue", () => {
  it("LINT-RULES.md lists every registered rule as the registry defines it", () => {
    const text = renderCatalogue();
    if (process.env.UPDATE_LINT_RULES === "1") writeFileSync(file, text);
    expect(readFileSync(file, "utf8")).toBe(text);
  });

  it("every rule is well formed: id, group, a version, a spec citation and a title", () => {
    for (const r of RULES) {
      expect(r.id).toMatch(/^(vast|vmap)\.[a-z0-9-]+(\.[a-z0-9-]+)+$/);
      expect(LINT_GROUPS).toContain(r.group);
      expect(["error", "warning", "info"]).toContain(r.severity);
      expect(r.spec).toMatch(/^(VAST|VMAP|IAB|Adobe)/);
      expect(r.title.length).toBeGreaterThan(10);
      if (r.id !== "vast.vast1.obsolete") expect(r.versions.length).toBeGreaterThan(0);
    }
    expect(RULES.length).toBeGreaterThanOrEqual(200);
  });

  // Issue 23 "Done when": the rule count, the versions covered and the per-rule corpus test are in npm test and the
  // README — the figures the READMEs state are the registry's, so a rule added without its README line fails here.
  it("the READMEs state the registry's rule count, per-severity and per-version figures, and the per-rule corpus test", () => {
    const count = (f: (r: (typeof RULES)[number]) => boolean) => RULES.filter(f).length;
    const per = (v: string) => count((r) => (r.versions as readonly string[]).includes(v));
    const readme = readFileSync(fileURLToPath(new URL("../README.md", import.meta.url)), "utf8").replace(/\s+/g, " ");
    const root = readFileSync(fileURLToPath(new URL("../../../README.md", import.meta.url)), "utf8").replace(/\s+/g, " ");
    expect(per("4.2")).toBe(per("4.3"));
    expect(readme).toContain(
      `**${RULES.length} rules** over VAST 2.0, 3.0, 4.0, 4.1, 4.2, 4.3 and VMAP 1.0.1 (${count((r) => r.severity === "error")} error, ` +
        `${count((r) => r.severity === "warning")} warning, ${count((r) => r.severity === "info")} info; per version 2.0: ${per("2.0")}, ` +
        `3.0: ${per("3.0")}, 4.0: ${per("4.0")}, 4.1: ${per("4.1")}, 4.2/4.3: ${per("4.2")}, VMAP: ${per("vmap")};`,
    );
    expect(readme).toContain("`test/lint-corpus.test.ts`");
    expect(root).toContain(`${RULES.length} cited lint rules over VAST 2.0–4.3 and VMAP 1.0.1`);
    expect(root).toContain("services/vast-analyzer/test/lint-corpus.test.ts");
  });
});
