/**
 * Just enough HTML tokenising for the static fields: tags with attributes, inline <script>/<style> bodies.
 * Regex-based on purpose (no parser dependency); the fields are heuristics over creatives, not a browser — the
 * browser's view comes from the render.
 */

export interface Tag {
  name: string;
  attrs: Map<string, string>;
}

// Attribute values may not contain "<" here and tags may not span one: every match attempt then ends at the next
// "<", which keeps the scan linear on hostile markup (a browser would differ only on such odd markup).
const TAG = /<([a-zA-Z][\w:-]*)\b((?:[^<>"']|"[^"<]*"|'[^'<]*')*)>/g;
const ATTR = /([^\s"'<>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?/g;

export function decodeText(data: Uint8Array): string {
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString("utf8").replace(/^\uFEFF/, "");
}

interface Blocks {
  /** The markup without comments, with script/style bodies emptied (their open tags kept). */
  markup: string;
  scripts: Array<{ attrs: string; body: string }>;
  styles: string[];
}


/**
 * Splits HTML into markup, <script> and <style> bodies, dropping <!-- comments -->, with indexOf scanning (no
 * backtracking regex, so linear on hostile input). Like a browser, a body runs to its closing tag or the end.
 */
export function splitHtml(html: string): Blocks {
  const lower = html.toLowerCase();
  const blocks: Blocks = { markup: "", scripts: [], styles: [] };
  const parts: string[] = [];
  let i = 0;
  const next = { comment: -2, script: -2, style: -2 };
  const find = (what: keyof typeof next, needle: string): number => {
    if (next[what] !== -1 && next[what] < i) next[what] = lower.indexOf(needle, i);
    return next[what] === -1 ? Infinity : next[what];
  };
  while (i < html.length) {
    const c = find("comment", "<!--");
    const sc = find("script", "<script");
    const st = find("style", "<style");
    const at = Math.min(c, sc, st);
    if (at === Infinity) break;
    parts.push(html.slice(i, at));
    if (at === c) {
      const close = lower.indexOf("-->", at + 4);
      i = close === -1 ? html.length : close + 3;
      continue;
    }
    const tag = at === sc ? "script" : "style";
    const after = lower.charCodeAt(at + tag.length + 1);
    // "<scripts>" or "<styled-x>" are other elements: keep scanning past the name.
    if (!(after === 0x3e || after === 0x2f || after <= 0x20 || Number.isNaN(after))) {
      parts.push(html.slice(at, at + tag.length + 1));
      i = at + tag.length + 1;
      continue;
    }
    const openEnd = lower.indexOf(">", at);
    if (openEnd === -1) {
      i = html.length;
      break;
    }
    const attrs = html.slice(at + tag.length + 1, openEnd);
    const close = lower.indexOf(`</${tag}`, openEnd + 1);
    const body = html.slice(openEnd + 1, close === -1 ? html.length : close);
    parts.push(`<${tag}${attrs}></${tag}>`);
    if (tag === "script") blocks.scripts.push({ attrs, body });
    else blocks.styles.push(body);
    const closeEnd = close === -1 ? -1 : lower.indexOf(">", close);
    i = closeEnd === -1 ? html.length : closeEnd + 1;
  }
  parts.push(html.slice(i));
  blocks.markup = parts.join("");
  return blocks;
}

export function parseAttributes(source: string): Map<string, string> {
  const attrs = new Map<string, string>();
  for (const m of source.matchAll(ATTR)) {
    const key = m[1].toLowerCase();
    if (!attrs.has(key)) attrs.set(key, decodeEntities(m[2] ?? m[3] ?? m[4] ?? ""));
  }
  return attrs;
}

export function findTags(html: string, name?: string): Tag[] {
  const out: Tag[] = [];
  for (const m of splitHtml(html).markup.matchAll(TAG)) {
    const tagName = m[1].toLowerCase();
    if (name === undefined || tagName === name) out.push({ name: tagName, attrs: parseAttributes(m[2]) });
  }
  return out;
}

/** Bodies of inline classic/module scripts (no src, a JavaScript type or none). */
export function inlineScripts(html: string): string[] {
  const out: string[] = [];
  for (const { attrs: source, body } of splitHtml(html).scripts) {
    const attrs = parseAttributes(source);
    const type = (attrs.get("type") ?? "").trim().toLowerCase();
    const isJs = type === "" || type === "module" || /(java|ecma)script/.test(type);
    if (!attrs.has("src") && isJs && body.trim() !== "") out.push(body);
  }
  return out;
}

export function inlineStyles(html: string): string[] {
  return splitHtml(html).styles.filter((s) => s.trim() !== "");
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: "\u00a0" };

export function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, body: string) => {
    if (body[0] === "#") {
      const code = body[1] === "x" || body[1] === "X" ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[body.toLowerCase()] ?? whole;
  });
}

/**
 * JavaScript without comments, strings kept. A small lexer rather than a regex so that "http://" inside a string is
 * not taken for a comment; regex literals are not recognised (a quote inside one can desynchronise the rest of that
 * script, which only costs a heuristic).
 */
export function stripJsComments(code: string): string {
  let out = "";
  let i = 0;
  while (i < code.length) {
    const c = code[i];
    const next = code[i + 1];
    if (c === "/" && next === "/") {
      const end = code.indexOf("\n", i);
      i = end === -1 ? code.length : end;
    } else if (c === "/" && next === "*") {
      const end = code.indexOf("*/", i + 2);
      out += " ";
      i = end === -1 ? code.length : end + 2;
    } else if (c === '"' || c === "'" || c === "`") {
      let j = i + 1;
      while (j < code.length && code[j] !== c) {
        if (code[j] === "\\") j++;
        else if (c !== "`" && code[j] === "\n") break;
        j++;
      }
      out += code.slice(i, j + 1);
      i = j + 1;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}
