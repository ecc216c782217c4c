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
});
