import { kid, type XmlNode } from "../xml-tree.ts";
import { attrOf, tag, type LintContext } from "./context.ts";
import type { LintGroup, LintHit, LintRule, LintVersion, Severity } from "./types.ts";

// Builders for the common shapes of rule, so each rule stays one small declaration: an element that must have a
// child, an attribute that must be present, a value that must have a format.

interface Base {
  id: string;
  group: LintGroup;
  severity: Severity;
  versions: readonly LintVersion[];
  spec: string;
  title: string;
}

export type Select = (ctx: LintContext) => Iterable<XmlNode>;

export function rule(r: Base & { check(ctx: LintContext): Iterable<LintHit> }): LintRule {
  return r;
}

/** Each element `where` selects must have a child `child` (case-insensitive). */
export function requiresChild(o: Base & { where: Select; child: string; message: (parent: XmlNode, ctx: LintContext) => string }): LintRule {
  return rule({
    ...o,
    *check(ctx) {
      for (const n of o.where(ctx)) if (!kid(n, o.child)) yield { node: n, message: o.message(n, ctx) };
    },
  });
}

/** Each element `where` selects must carry attribute `attr` (an empty value counts as present: the format rules judge it). */
export function requiresAttr(o: Base & { where: Select; attr: string; message?: (node: XmlNode, ctx: LintContext) => string; why?: string }): LintRule {
  return rule({
    ...o,
    *check(ctx) {
      for (const n of o.where(ctx)) {
        if (attrOf(n, o.attr) !== undefined) continue;
        yield { node: n, message: o.message?.(n, ctx) ?? `${tag(n)} has no ${o.attr} attribute: add ${o.attr}="…"${o.why ? ` (${o.why})` : ""}` };
      }
    },
  });
}

/** When present, attribute `attr` must satisfy `valid`. */
export function attrFormat(o: Base & { where: Select; attr: string; valid: (v: string) => boolean; expected: string }): LintRule {
  return rule({
    ...o,
    *check(ctx) {
      for (const n of o.where(ctx)) {
        const v = attrOf(n, o.attr);
        if (v === undefined || o.valid(v)) continue;
        yield { node: n, message: `${tag(n)} ${o.attr}="${clip(v)}" is not ${o.expected}: write ${o.attr} as ${o.expected}` };
      }
    },
  });
}

/** The element's text (trimmed) must satisfy `valid`; an empty element is judged by its own rule when `skipEmpty`. */
export function textFormat(o: Base & { where: Select; valid: (v: string) => boolean; expected: string; skipEmpty?: boolean }): LintRule {
  return rule({
    ...o,
    *check(ctx) {
      for (const n of o.where(ctx)) {
        const v = n.text.trim();
        if ((o.skipEmpty && v === "") || o.valid(v)) continue;
        yield { node: n, message: `${tag(n)} "${clip(v)}" is not ${o.expected}: write it as ${o.expected}` };
      }
    },
  });
}

/** A value for a message, cut to a readable length. */
export function clip(v: string, max = 80): string {
  const one = v.replace(/\s+/g, " ").trim();
  return one.length > max ? `${one.slice(0, max)}…` : one;
}

// Selectors shared by several rule modules.

export const inAds = (ctx: LintContext, kind: "inline" | "wrapper", name: string): XmlNode[] =>
  ctx.all(name).filter((n) => ctx.adKind(n) === kind);

/** Children named `child` of elements named `parent` (e.g. MediaFile under MediaFiles), optionally in one kind of ad. */
export const under = (ctx: LintContext, parent: string, child: string, kind?: "inline" | "wrapper"): XmlNode[] =>
  ctx.all(child).filter((n) => ctx.parent(n)?.name.toLowerCase() === parent.toLowerCase() && (kind === undefined || ctx.adKind(n) === kind));
