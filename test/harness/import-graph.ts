// The repository's module graph, read with the TypeScript parser (so an import written in a comment or inside a
// template string of page-side code is not one), and the checks the structure test runs on it. Kept apart from the
// test so the test can feed the checks a synthetic graph and see them fail.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import ts from "typescript";

/** A module and what it imports, both as repository-relative paths with `/` separators. */
export type ImportGraph = Map<string, string[]>;

/** Where the repository's TypeScript lives (tsconfig.json's `include`), minus generated code. */
const ROOTS = ["packages", "services", "edge", "test", "scripts", "bench"];
const SKIP_DIRS = new Set(["node_modules", "dist", "gen", ".data"]);

function tsFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((n) => {
    if (SKIP_DIRS.has(n) || n.startsWith(".")) return [];
    const p = path.join(dir, n);
    if (statSync(p).isDirectory()) return tsFiles(p);
    return p.endsWith(".ts") && !p.endsWith(".d.ts") ? [p] : [];
  });
}

/**
 * Every module specifier a file imports: static imports and re-exports (type-only ones too: they still couple the
 * modules), side-effect imports, and dynamic `import()` (calls and `import("x").T` types). A file loaded by path
 * (`new URL("./image-worker.ts", import.meta.url)` for a worker thread) is a program of its own, not an import.
 */
export function specifiersOf(fileName: string, text: string): string[] {
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.ES2022, false, ts.ScriptKind.TS);
  const out: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      out.push(node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [arg] = node.arguments;
      if (arg && ts.isStringLiteralLike(arg)) out.push(arg.text);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      out.push(node.argument.literal.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

/** Workspace package name → its folder (`@cva/platform` → `packages/platform`), from each package.json. */
function workspaces(repoRoot: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const parent of ["packages", "services"]) {
    for (const n of readdirSync(path.join(repoRoot, parent))) {
      const pj = path.join(repoRoot, parent, n, "package.json");
      if (existsSync(pj)) out.set((JSON.parse(readFileSync(pj, "utf8")) as { name: string }).name, `${parent}/${n}`);
    }
  }
  const edge = path.join(repoRoot, "edge/package.json");
  if (existsSync(edge)) out.set((JSON.parse(readFileSync(edge, "utf8")) as { name: string }).name, "edge");
  return out;
}

/** The file a package's `"."` export names, when it is one plain path (undefined: the src/index.ts convention). */
function mainExportOf(dir: string): string | undefined {
  const pj = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")) as { exports?: Record<string, unknown> };
  const dot = pj.exports?.["."];
  return typeof dot === "string" && !dot.startsWith("./src/") ? dot : undefined;
}

/** A file, or the `index.ts` of a folder (how `@cva/platform/testing` and `"."` exports resolve). */
function moduleAt(abs: string): string {
  if (existsSync(abs) && statSync(abs).isDirectory()) return path.join(abs, "index.ts");
  return abs;
}

export interface RepoGraph {
  graph: ImportGraph;
  /** Specifiers that name a repository module that does not exist (a typo the checks would otherwise miss). */
  unresolved: string[];
}

/**
 * The import graph of every TypeScript module of the repository. Workspace imports resolve as their package.json
 * exports say (`.` → `src/index.ts`, `./*` → `src/*`); third-party and `node:` imports are left out.
 */
export function readRepoGraph(repoRoot: string): RepoGraph {
  const ws = workspaces(repoRoot);
  const rel = (abs: string) => path.relative(repoRoot, abs).split(path.sep).join("/");
  const graph: ImportGraph = new Map();
  const unresolved: string[] = [];
  for (const file of ROOTS.flatMap((r) => tsFiles(path.join(repoRoot, r)))) {
    const deps: string[] = [];
    for (const spec of specifiersOf(file, readFileSync(file, "utf8"))) {
      let target: string | undefined;
      if (spec.startsWith("./") || spec.startsWith("../")) target = moduleAt(path.resolve(path.dirname(file), spec));
      else {
        const m = /^(@cva\/[^/]+)(?:\/(.*))?$/.exec(spec);
        const dir = m ? ws.get(m[1]!) : undefined;
        if (m && !dir) unresolved.push(`${rel(file)}: ${spec} (no such workspace)`);
        // A package whose "." export is not src/index.ts (packages/creative-kind: one browser module) says so.
        const main = dir && !m![2] ? mainExportOf(path.join(repoRoot, dir)) : undefined;
        if (dir) target = main ? path.join(repoRoot, dir, main) : moduleAt(path.join(repoRoot, dir, "src", m![2] ?? "index.ts"));
      }
      if (target === undefined) continue;
      // Generated protobuf code is not in the graph (not committed, and it imports only the runtime).
      if (rel(target).startsWith("packages/contracts/src/gen/")) continue;
      if (!existsSync(target)) unresolved.push(`${rel(file)}: ${spec}`);
      else deps.push(rel(target));
    }
    graph.set(rel(file), [...new Set(deps)]);
  }
  return { graph, unresolved };
}

/** Import cycles as `a → b → a`: each back edge a depth-first walk meets, with the path it closes (none = no cycle). */
export function cyclesOf(graph: ImportGraph): string[] {
  const cycles: string[] = [];
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (f: string): void => {
    if (state.get(f) === "done") return;
    if (state.get(f) === "open") {
      cycles.push([...stack.slice(stack.indexOf(f)), f].join(" → "));
      return;
    }
    state.set(f, "open");
    stack.push(f);
    for (const d of graph.get(f) ?? []) visit(d);
    stack.pop();
    state.set(f, "done");
  };
  for (const f of [...graph.keys()].sort()) visit(f);
  return cycles;
}

/** One import that breaks a rule, as `from → to (why)`; the allow-list names edges as `from → to`. */
export interface Violation {
  edge: string;
  why: string;
}

/** A rule: given an import from one module to another, a reason when it is not allowed. */
export type Rule = (from: string, to: string) => string | undefined;

export function violationsOf(graph: ImportGraph, rules: Rule[]): Violation[] {
  const out: Violation[] = [];
  for (const [from, deps] of graph) {
    for (const to of deps) {
      for (const rule of rules) {
        const why = rule(from, to);
        if (why) out.push({ edge: `${from} → ${to}`, why });
      }
    }
  }
  return out.sort((a, b) => a.edge.localeCompare(b.edge));
}
