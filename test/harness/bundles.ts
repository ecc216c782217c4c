// Whether the production bundles in dist/ (`npm run build`) were built from the sources as they are now, so an
// end-to-end stack can run them instead of the sources through tsx. A process started from its bundle costs a third
// of the CPU (measured 2026-11-27 on the loaded 2-core machine, to the point where it reads its config: tag-scanner
// 1.7–2.1 s against 4.7–4.8 s, edge 1.1–1.3 s against 4.5 s), and a test stack starts 4–7 of them; `npm test` builds
// the bundles just before vitest, so in CI they are always fresh. Anywhere else a bundle older than any source file
// or folder it may hold (a file edited, added or deleted since: its mtime, or its folder's, is newer) is stale, and
// the stack runs the sources as before: a wrong answer here can only cost time, never test old code.
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { SERVICE_NAMES, builtEntry } from "../../scripts/lib/services.ts";

/**
 * Where bundled code comes from: our workspaces (tests, dependencies and outputs are not bundled; no service imports
 * scripts/), and the build's own recipe.
 */
const SOURCE_ROOTS = ["edge", "services", "packages", "scripts/lib/build.ts", "scripts/lib/services.ts"];
const NOT_BUNDLED = new Set(["node_modules", "test", "dist", "coverage"]);

/** The newest mtime (ms) of `dir` (a file or folder) and everything under it, past `limit` as soon as one is. */
function newest(dir: string, limit: number): number {
  const st = statSync(dir);
  let latest = st.mtimeMs;
  if (!st.isDirectory()) return latest;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (latest > limit) break;
    if (NOT_BUNDLED.has(e.name) || e.name.startsWith(".")) continue;
    const p = join(dir, e.name);
    latest = Math.max(latest, e.isDirectory() ? newest(p, limit) : statSync(p).mtimeMs);
  }
  return latest;
}

let fresh: boolean | undefined;

/** True when every service's bundle exists and is newer than every source it may hold. CVA_TEST_SOURCES=1: false. */
export function freshBundles(root: string): boolean {
  if (process.env.CVA_TEST_SOURCES) return false;
  if (fresh !== undefined) return fresh;
  try {
    const built = Math.min(...SERVICE_NAMES.map((n) => statSync(builtEntry(root, n)).mtimeMs));
    fresh = SOURCE_ROOTS.every((r) => newest(join(root, r), built) <= built);
  } catch {
    fresh = false; // a bundle missing (never built): the sources
  }
  return fresh;
}
