// Small text edits of a base document; each throws when its target is not there, so a case can never silently test
// the unmodified base.

export type Edit = (doc: string) => string;

function must(doc: string, found: boolean, what: string): void {
  if (!found) throw new Error(`edit target not found: ${what}`);
}

/** Replaces the first occurrence of `from` (all occurrences for a global RegExp). */
export const rep = (from: string | RegExp, to: string): Edit => (doc) => {
  must(doc, typeof from === "string" ? doc.includes(from) : new RegExp(from.source, from.flags.replace("g", "")).test(doc), String(from));
  return doc.replace(from, to);
};

/** The first start tag `<el …>` (or `<el>`), for attribute edits. */
function startTag(doc: string, el: string, nth = 0): { at: number; tag: string } {
  const re = new RegExp(`<${el}(?=[\\s>/])[^>]*>`, "g");
  let m: RegExpExecArray | null = null;
  for (let i = 0; i <= nth; i++) m = re.exec(doc);
  must(doc, m !== null, `<${el}> #${nth}`);
  return { at: m!.index, tag: m![0] };
}

/** Sets attribute `name` on the nth `<el>` (0 = first): replaces its value, or adds it. */
export const setAttr = (el: string, name: string, value: string, nth = 0): Edit => (doc) => {
  const { at, tag } = startTag(doc, el, nth);
  const re = new RegExp(`\\s${name}="[^"]*"`);
  const next = re.test(tag) ? tag.replace(re, ` ${name}="${value}"`) : tag.replace(new RegExp(`^<${el}`), `<${el} ${name}="${value}"`);
  return doc.slice(0, at) + next + doc.slice(at + tag.length);
};

/** Removes attribute `name` from the nth `<el>`. */
export const delAttr = (el: string, name: string, nth = 0): Edit => (doc) => {
  const { at, tag } = startTag(doc, el, nth);
  const re = new RegExp(`\\s${name}="[^"]*"`);
  must(doc, re.test(tag), `${el}@${name}`);
  return doc.slice(0, at) + tag.replace(re, "") + doc.slice(at + tag.length);
};

/** Removes the first `<el …>…</el>` (no nested element of the same name) with its leading indentation. */
export const drop = (el: string, containing = ""): Edit => (doc) => {
  const re = new RegExp(`\\n?[ \\t]*<${el}(?=[\\s>])[^>]*>(?:(?!<${el}[\\s>])[\\s\\S])*?</${el}>`, "g");
  for (const m of doc.matchAll(re)) if (m[0].includes(containing)) return doc.slice(0, m.index) + doc.slice(m.index + m[0].length);
  must(doc, false, `<${el}> containing ${containing}`);
  return doc;
};

/** Inserts `xml` right after the first occurrence of `marker`. */
export const after = (marker: string, xml: string): Edit => (doc) => {
  must(doc, doc.includes(marker), marker);
  const i = doc.indexOf(marker) + marker.length;
  return doc.slice(0, i) + xml + doc.slice(i);
};

/** Inserts `xml` right before the first occurrence of `marker`. */
export const before = (marker: string, xml: string): Edit => (doc) => {
  must(doc, doc.includes(marker), marker);
  const i = doc.indexOf(marker);
  return doc.slice(0, i) + xml + doc.slice(i);
};

/** The first complete `<el …>…</el>` of the document, as written. */
export function element(doc: string, el: string, containing = ""): string {
  const re = new RegExp(`<${el}(?=[\\s>])[^>]*>(?:(?!<${el}[\\s>])[\\s\\S])*?</${el}>`, "g");
  for (const m of doc.matchAll(re)) if (m[0].includes(containing)) return m[0];
  throw new Error(`no <${el}> containing ${containing}`);
}

export const apply = (doc: string, edits: Edit | readonly Edit[]): string =>
  (Array.isArray(edits) ? edits : [edits as Edit]).reduce((d, e) => e(d), doc);
