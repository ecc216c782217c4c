/**
 * axe-core's browser bundle cut down to the rules the report uses: the same engine (every byte of it, as published),
 * with the rule and check definitions and their messages — the object the bundle passes to `axe._load` at its end —
 * reduced to those rules and the checks they name. Derived from the pinned npm package's `axe.min.js` in memory, once
 * per process, by this code (no edited copy is kept anywhere): axe-core is MPL-2.0, and the modified file's source is
 * the package plus this function (README, licences).
 *
 * Why: loading axe into each scanned frame's isolated world is sending the bundle over CDP and V8 compiling and
 * running it; `axe._load` builds every rule and check and compiles every message template. With 10 of 105 rules the
 * bundle is 13 % smaller and its load costs the renderer's main thread ~10 % less CPU (README, "where a static scan's
 * time goes").
 */

/** Where the bundle's `_load(` argument ends: the bundle's last characters after it (axe-core 4.x's UMD footer). */
const FOOTER = `)}("object"==typeof window?window:this);`;
const LOAD = "_load({";

interface CheckRef { id: string }
interface AxeLoad {
  lang: string;
  data: { rules: Record<string, unknown>; checks: Record<string, unknown>; [k: string]: unknown };
  rules: Array<{ id: string; any: Array<string | CheckRef>; all: Array<string | CheckRef>; none: Array<string | CheckRef> }>;
  checks: Array<{ id: string }>;
}

/**
 * `source` with only `rules` and the checks they use. Throws, naming what it did not find, when the bundle is not
 * shaped as expected (another axe-core version): the caller then loads the full bundle.
 */
export function axeSubset(source: string, rules: readonly string[]): string {
  const start = source.lastIndexOf(LOAD);
  const end = source.trimEnd().endsWith(FOOTER) ? source.trimEnd().length - FOOTER.length : -1;
  if (start < 0 || end < start) throw new Error("axe-core bundle: its _load({...}) call was not found where expected");
  const literal = source.slice(start + LOAD.length - 1, end);
  // The literal is the package's own code (data, and the message functions doT compiled at build time), evaluated as
  // the browser would evaluate it.
  const load = new Function(`return (${literal});`)() as AxeLoad;
  const keep = new Set(rules);
  const kept = load.rules.filter((r) => keep.has(r.id));
  if (kept.length !== keep.size) throw new Error(`axe-core bundle: rules ${[...keep].filter((r) => !kept.some((k) => k.id === r)).join(", ")} not found`);
  const checkIds = new Set(kept.flatMap((r) => [...r.any, ...r.all, ...r.none].map((c) => (typeof c === "string" ? c : c.id))));
  const pick = (o: Record<string, unknown>, ids: Set<string>) => Object.fromEntries(Object.entries(o).filter(([k]) => ids.has(k)));
  const reduced: AxeLoad = {
    ...load,
    data: { ...load.data, rules: pick(load.data.rules, keep), checks: pick(load.data.checks, checkIds) },
    rules: kept,
    checks: load.checks.filter((c) => checkIds.has(c.id)),
  };
  const fns: Array<(...a: unknown[]) => unknown> = [];
  const text = JSON.stringify(reduced, (_k, v: unknown) => (typeof v === "function" ? `\u0000fn${fns.push(v as never) - 1}\u0000` : v))
    .replace(/"\\u0000fn(\d+)\\u0000"/g, (_m, n: string) => fns[Number(n)]!.toString());
  return `${source.slice(0, start + LOAD.length - 1)}${text}${source.slice(end)}`;
}
