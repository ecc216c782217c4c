import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** What may cross into the page as an argument: data, written as a JSON literal. */
export type PageValue = string | number | boolean | null | PageValue[] | { [key: string]: PageValue };

/**
 * Page-side code — the probes that run in isolated worlds, the instrumentation and the MRAID container that run in
 * the creative's own world — lives in `page/*.js`: plain JavaScript that tsc type-checks (`// @ts-check` and JSDoc,
 * with the artifact types imported from the gatherers that read them) and that reaches the page as its own text.
 * Never a function's toString(): transpilers inject helpers into functions (tsx's keepNames adds `__name(...)` calls
 * that do not exist in the page). The production build copies these files next to the bundles (scripts/lib/build.ts).
 *
 * Each file declares the function `name` (and any helpers beside it). The returned maker writes the expression that
 * declares them in a scope of their own — nothing leaks into the page's globals — and calls the function with its
 * arguments as JSON literals: a parameter (a per-scan binding name, a width) is data, never spliced into code.
 */
export function pageFunction<A extends PageValue[] = []>(file: URL, name: string): (...args: A) => string {
  const source = readFileSync(file, "utf8");
  if (!new RegExp(`^function ${name}\\(`, "m").test(source)) throw new Error(`${fileURLToPath(file)} does not declare function ${name}`);
  return (...args) => `(() => {\n${source}\nreturn ${name}(${args.map((a) => JSON.stringify(a)).join(", ")});\n})()`;
}
