// The structure rules the README and docs/design.md state, proved on the whole repository's import graph:
// - no import cycle;
// - four floors, imports only go down or sideways: packages/contracts < packages/platform < packages/spec-sets <
//   services/* and edge < test/, scripts/, bench/ (tooling);
// - no service (nor the edge) imports another's code: shared code goes in packages/ (a test may drive another
//   service through its public entry, src/index.ts, as the root tests do);
// - production code imports no test code (test/ folders, scripts/, bench/, @cva/platform/testing);
// - process entry points (main.ts) are run, never imported; the edge's routes never reach back into app.ts;
// - inside the platform: the ground floor (plumbing, NATS) < what runs on it (host, artifacts, dispatch) < the
//   barrel and test support (issue 18: the NATS names live on the ground floor);
// - inside the tag scanner (its README, "Layout"): gatherers < fields < report < scanner < service wiring.
// Each rule is checked on synthetic graphs first, so a rule that could never fire does not pass unnoticed.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { cyclesOf, readRepoGraph, specifiersOf, violationsOf, type ImportGraph, type Rule } from "./harness/import-graph.ts";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

// --- the rules ---------------------------------------------------------------------------------------------------

/** `packages/platform/src/x.ts` → `packages/platform`; `edge/...` → `edge`; `test/...` → `test`. */
function workspaceOf(file: string): string {
  const [top, name] = file.split("/");
  return top === "packages" || top === "services" ? `${top}/${name}` : top!;
}

/** The floor of a workspace; higher floors build on lower ones. */
function floorOf(workspace: string): number {
  if (workspace === "packages/contracts") return 0;
  // The `cva` CLI: a client of the public HTTP API that stands alone (no workspace import), so any floor may use it.
  if (workspace === "packages/cli") return 0;
  // Which endpoint a creative goes to (one browser module the CLI imports and the console serves): imports nothing.
  if (workspace === "packages/creative-kind") return 0;
  // Pixel helpers (rasters, the border detector, animated-image timing): pure, importing no workspace.
  if (workspace === "packages/platform" || workspace === "packages/imaging") return 1;
  if (workspace === "packages/spec-sets") return 2;
  if (workspace.startsWith("services/") || workspace === "edge") return 3;
  if (workspace === "test" || workspace === "scripts" || workspace === "bench") return 4;
  throw new Error(`${workspace} has no floor: add it to floorOf() in test/structure.test.ts`);
}

const isTest = (file: string) => /^(packages|services)\/[^/]+\/test\//.test(file) || file.startsWith("edge/test/") || file.startsWith("test/");
const isTesting = (file: string) => file.startsWith("packages/platform/src/testing/");
/** What ships: a workspace's src/, less the platform's test support. */
const isProduction = (file: string) => /^(packages\/[^/]+|services\/[^/]+|edge)\/src\//.test(file) && !isTesting(file);

const floors: Rule = (from, to) => {
  const [f, t] = [floorOf(workspaceOf(from)), floorOf(workspaceOf(to))];
  return t > f ? `imports up a floor (${workspaceOf(from)} is floor ${f}, ${workspaceOf(to)} floor ${t})` : undefined;
};

const isolatedServices: Rule = (from, to) => {
  const [a, b] = [workspaceOf(from), workspaceOf(to)];
  const isService = (w: string) => w.startsWith("services/") || w === "edge";
  if (!isService(a) || !isService(b) || a === b) return undefined;
  if (isTest(from) && to === `${b}/src/index.ts`) return undefined;
  return `${a} imports ${b}'s code (shared code goes in packages/)`;
};

const noTestCodeInProduction: Rule = (from, to) => {
  if (!isProduction(from)) return undefined;
  const tooling = ["test", "scripts", "bench"].includes(workspaceOf(to));
  return isTest(to) || isTesting(to) || tooling ? "production code imports test or tooling code" : undefined;
};

const entryPoints: Rule = (from, to) => {
  if (/^(services\/[^/]+|edge)\/src\/main\.ts$/.test(to)) return "imports a process entry point (main.ts is run, never imported)";
  if (from.startsWith("edge/src/routes/") && to === "edge/src/app.ts") return "a route reaches back into app.ts, which registers the routes";
  return undefined;
};

/** Floors inside one workspace: `[prefix, floor]`, the longest matching prefix wins; unmatched files get `rest`. */
function floorsWithin(workspace: string, table: Array<[string, number]>, rest: number, label: string): Rule {
  const floorIn = (file: string): number => {
    const rel = file.slice(workspace.length + 1);
    const hit = table.filter(([p]) => rel === p || rel.startsWith(p.endsWith("/") ? p : `${p}/`)).sort((a, b) => b[0].length - a[0].length)[0];
    return hit ? hit[1] : rest;
  };
  return (from, to) => {
    if (!from.startsWith(`${workspace}/`) || !to.startsWith(`${workspace}/`)) return undefined;
    const [f, t] = [floorIn(from), floorIn(to)];
    return t > f ? `${label}: imports up a floor (${f} → ${t})` : undefined;
  };
}

/**
 * The platform: plumbing and NATS on the ground, what runs on them above (files not in the table sit there too), the
 * barrel and test support on top.
 */
const platformFloors = floorsWithin("packages/platform", [
  ["src/logger.ts", 0], ["src/machine.ts", 0], ["src/lifecycle.ts", 0], ["src/config.ts", 0],
  ["src/credentials/", 0], ["src/outbound/", 0], ["src/nats/", 0], ["src/process/", 0],
  ["src/host/", 1], ["src/artifacts/", 1], ["src/dispatch/", 1],
  ["src/index.ts", 2], ["src/testing/", 2],
  ["test/", 3],
], 1, "platform floors");

/**
 * The tag scanner (README "Layout"): gatherers drive the browser and produce plain data; fields are pure functions of
 * that data; report.ts builds the report; scanner.ts orchestrates the phases; service/routes/server/main wire it.
 * Below them, the browser and page support the gatherers use. Files not in the table orchestrate, beside scanner.ts.
 */
const tagScannerFloors = floorsWithin("services/tag-scanner", [
  ["src/util.ts", 0], ["src/config.ts", 0], ["src/synthetic-origin.ts", 0], ["src/mraid-host.ts", 0], ["src/gatherers/page-script.ts", 0], ["src/cdp-transport.ts", 0], ["src/cdp-compact.ts", 0],
  ["src/new-tab-profile.ts", 0], ["src/netns.ts", 0], ["src/sandbox.ts", 0], ["src/browser-pool.ts", 0],
  ["src/side-page.ts", 0], ["src/heavy-ad/ruleset.ts", 0], ["src/heavy-ad/issue.ts", 0], ["src/heavy-ad/trigger.ts", 1], ["src/heavy-ad/ad-frame-site.ts", 0],
  ["src/gatherers/", 1], ["src/privacy/consent-sensor.ts", 1],
  ["src/fields/", 2], ["src/privacy/artifact.ts", 2], ["src/privacy/vendors.ts", 2], ["src/privacy/consent-states.ts", 2],
  ["src/privacy/summary.ts", 2], ["src/privacy/report-field.ts", 2],
  ["src/report.ts", 3], ["src/image-work.ts", 3], ["src/image-worker.ts", 3], ["src/prepared-page.ts", 3], ["src/warm-pages.ts", 3],
  ["src/heavy-ad/run.ts", 3],
  ["src/scanner.ts", 4],
  ["src/service.ts", 5], ["src/routes.ts", 5], ["src/job.ts", 5],
  ["src/server.ts", 6], ["src/main.ts", 6], ["src/index.ts", 6],
  ["test/", 7], ["scripts/", 7],
], 4, "tag-scanner floors");

const RULES: Rule[] = [floors, isolatedServices, noTestCodeInProduction, entryPoints, platformFloors, tagScannerFloors];

/**
 * Temporary (issue 18): imports up a floor on main when this test was written, each being removed by another issue-18
 * branch. Delete a line when its branch is merged — an entry that no longer matches an import fails the test, so
 * the list cannot outlive its reason. Nothing may be added here.
 */
const KNOWN_UP_ARROWS = new Set<string>([]);

// --- the checks prove they can fail ------------------------------------------------------------------------------

const graphOf = (edges: Array<[string, string]>): ImportGraph => {
  const g: ImportGraph = new Map();
  for (const [f, t] of edges) g.set(f, [...(g.get(f) ?? []), t]);
  return g;
};

describe("structure checks (self-check on synthetic graphs)", () => {
  it("report a cycle, and only the cycle", () => {
    const g: ImportGraph = new Map([["a.ts", ["b.ts"]], ["b.ts", ["c.ts"]], ["c.ts", ["a.ts"]], ["d.ts", ["a.ts"]], ["e.ts", []]]);
    expect(cyclesOf(g)).toEqual(["a.ts → b.ts → c.ts → a.ts"]);
    expect(cyclesOf(new Map([["self.ts", ["self.ts"]]]))).toEqual(["self.ts → self.ts"]);
    expect(cyclesOf(new Map([["a.ts", ["b.ts"]], ["b.ts", []], ["c.ts", ["a.ts", "b.ts"]]]))).toEqual([]);
  });

  it("report every kind of forbidden import", () => {
    const bad: Array<[string, string]> = [
      ["packages/platform/src/dispatch/worker.ts", "packages/spec-sets/src/index.ts"],
      ["packages/contracts/src/index.ts", "packages/platform/src/index.ts"],
      ["services/auth/src/store.ts", "test/harness/stack.ts"],
      ["services/tag-scanner/src/scanner.ts", "services/zip-analyzer/src/index.ts"],
      ["services/vast-analyzer/test/x.test.ts", "services/media-prober/src/exec.ts"],
      ["edge/src/scan/use-case.ts", "services/auth/src/store.ts"],
      ["services/auth/src/store.ts", "packages/platform/src/testing/index.ts"],
      ["services/auth/src/store.ts", "services/auth/test/helpers.ts"],
      ["services/auth/src/index.ts", "services/auth/src/main.ts"],
      ["edge/src/routes/scan.ts", "edge/src/app.ts"],
      ["packages/platform/src/nats/connect.ts", "packages/platform/src/dispatch/worker.ts"],
      ["packages/platform/src/dispatch/worker.ts", "packages/platform/src/testing/until.ts"],
      ["packages/platform/src/nats/auth.ts", "packages/platform/src/some-new-module.ts"],
      ["services/tag-scanner/src/gatherers/network.ts", "services/tag-scanner/src/fields/ssl.ts"],
      ["services/tag-scanner/src/fields/ssl.ts", "services/tag-scanner/src/report.ts"],
      ["services/tag-scanner/src/scanner.ts", "services/tag-scanner/src/service.ts"],
      ["services/tag-scanner/src/gatherers/network.ts", "services/tag-scanner/src/some-new-orchestrator.ts"],
    ];
    const found = violationsOf(graphOf(bad), RULES).map((v) => v.edge);
    for (const [f, t] of bad) expect(found, `${f} → ${t}`).toContain(`${f} → ${t}`);
  });

  it("let the allowed imports through", () => {
    const good: Array<[string, string]> = [
      ["services/tag-scanner/src/fields/ssl.ts", "services/tag-scanner/src/gatherers/network.ts"],
      ["services/tag-scanner/src/server.ts", "services/tag-scanner/src/routes.ts"],
      ["services/zip-analyzer/test/corpus-render.test.ts", "services/tag-scanner/src/index.ts"],
      ["services/zip-analyzer/src/index.ts", "packages/spec-sets/src/index.ts"],
      ["packages/platform/src/dispatch/worker.ts", "packages/platform/src/nats/connect.ts"],
      ["packages/platform/src/testing/nats-server.ts", "packages/platform/src/nats/server.ts"],
      ["packages/platform/test/dispatch.test.ts", "packages/platform/src/testing/index.ts"],
      ["test/harness/zip.ts", "services/zip-analyzer/test/zip-writer.ts"],
      ["scripts/lib/stack.ts", "services/auth/src/index.ts"],
    ];
    expect(violationsOf(graphOf(good), RULES)).toEqual([]);
  });

  it("read imports from the code, not from comments or strings", () => {
    const text = [
      `// import { no } from "./commented.ts";`,
      `const page = \`<script>import("./in-template.ts")</script>\`;`,
      `const s = "export * from './in-string.ts'";`,
      `import type { A } from "./types.ts";`,
      `import "./side-effect.ts";`,
      `export * from "./re-export.ts";`,
      `export { b } from "@cva/platform";`,
      `const m = await import("./dynamic.ts");`,
      `let t: import("./type-query.ts").T;`,
      `const worker = new URL("./worker.ts", import.meta.url);`,
    ].join("\n");
    expect(specifiersOf("x.ts", text)).toEqual(["./types.ts", "./side-effect.ts", "./re-export.ts", "@cva/platform", "./dynamic.ts", "./type-query.ts"]);
  });
});

// --- the repository ----------------------------------------------------------------------------------------------

describe("repository structure", () => {
  const { graph, unresolved } = readRepoGraph(repoRoot);

  it("is read whole: every workspace, every import resolved", () => {
    const workspaces = new Set([...graph.keys()].map(workspaceOf));
    for (const w of ["packages/contracts", "packages/platform", "packages/spec-sets", "services/auth", "services/report-store",
      "services/tag-scanner", "services/zip-analyzer", "services/vast-analyzer", "services/media-prober", "edge", "test", "scripts", "bench"]) {
      expect(workspaces, w).toContain(w);
    }
    expect(graph.size).toBeGreaterThan(300);
    expect([...graph.values()].reduce((n, d) => n + d.length, 0)).toBeGreaterThan(1000);
    expect(unresolved).toEqual([]);
    // Every module has a floor (a new top-level folder must be placed).
    for (const f of graph.keys()) floorOf(workspaceOf(f));
  });

  it("has no import cycle", () => {
    expect(cyclesOf(graph)).toEqual([]);
  });

  it("imports only down or sideways, services apart, no test code in production", () => {
    const violations = violationsOf(graph, RULES).filter((v) => !KNOWN_UP_ARROWS.has(v.edge));
    expect(violations).toEqual([]);
  });

  it("still has every allowed exception (issue 18: delete the line of each one removed)", () => {
    const edges = new Set(violationsOf(graph, RULES).map((v) => v.edge));
    expect([...KNOWN_UP_ARROWS].filter((e) => !edges.has(e))).toEqual([]);
  });
});
