// The edge's modules form no import cycle, and no route reaches back into app.ts (which registers the routes): auth
// is one hook file, shared constants one module, the request context its own module.
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const src = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../src");

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = path.join(dir, n);
    return statSync(p).isDirectory() ? files(p) : p.endsWith(".ts") ? [p] : [];
  });
}

/** Relative imports and re-exports of a module, type-only ones included (they still couple the modules). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const out: string[] = [];
  for (const m of text.matchAll(/(?:import|export)\s[^;]*?from\s+"(\.{1,2}\/[^"]+)"/g)) out.push(path.resolve(path.dirname(file), m[1]!));
  return out;
}

describe("edge module structure", () => {
  const graph = new Map(files(src).map((f) => [f, importsOf(f)]));

  it("has no import cycle", () => {
    const cycles: string[] = [];
    const state = new Map<string, "open" | "done">();
    const stack: string[] = [];
    const visit = (f: string) => {
      if (state.get(f) === "done") return;
      if (state.get(f) === "open") {
        cycles.push([...stack.slice(stack.indexOf(f)), f].map((p) => path.relative(src, p)).join(" → "));
        return;
      }
      state.set(f, "open");
      stack.push(f);
      for (const d of graph.get(f) ?? []) visit(d);
      stack.pop();
      state.set(f, "done");
    };
    for (const f of graph.keys()) visit(f);
    expect(cycles).toEqual([]);
  });

  it("routes import nothing from app.ts", () => {
    const app = path.join(src, "app.ts");
    for (const [f, deps] of graph) if (f.includes(`${path.sep}routes${path.sep}`)) expect(deps, path.relative(src, f)).not.toContain(app);
  });
});
