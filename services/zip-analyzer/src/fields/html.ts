/**
 * Just enough HTML tokenising for the static fields: tags with attributes, inline <script>/<style> bodies.
 * Regex-based on purpose (no parser dependency); the fields are heuristics over creatives, not a browser — the
 * browser's view comes from the render.
 */

export interface Tag {
  name: string;
  attrs: Map<string, string>;
}

const TAG = /<([a-zA-Z][\w:-]*)\b((?:[^>"']|"[^"]*"|'[^']*')*)>/g;
const ATTR = /([^\s"'<>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?/g;
const SCRIPT = /<script\b((?:[^>"']|"[^"]*"|'[^']*')*)>([\s\S]*?)<\/script\s*>/gi;
const STYLE = /<style\b(?:[^>"']|"[^"]*"|'[^']*')*>([\s\S]*?)<\/style\s*>/gi;
const HTML_COMMENT = /<!--[\s\S]*?-->/g;

export function decodeText(data: Uint8Array): string {
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString("utf8").replace(/^\uFEFF/, "");
}

/** Markup outside scripts and styles, without comments: where tags are looked for. */
function markupOnly(html: string): string {
  return html.replace(SCRIPT, (_m, attrs: string) => `<script${attrs}></script>`).replace(STYLE, "<style></style>")
    .replace(HTML_COMMENT, "");
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
  for (const m of markupOnly(html).matchAll(TAG)) {
    const tagName = m[1].toLowerCase();
    if (name === undefined || tagName === name) out.push({ name: tagName, attrs: parseAttributes(m[2]) });
  }
  return out;
}

/** Bodies of inline classic/module scripts (no src, a JavaScript type or none). */
export function inlineScripts(html: string): string[] {
  const out: string[] = [];
  for (const m of html.replace(HTML_COMMENT, (c) => (/<script/i.test(c) ? "" : c)).matchAll(SCRIPT)) {
    const attrs = parseAttributes(m[1]);
    const type = (attrs.get("type") ?? "").trim().toLowerCase();
    const isJs = type === "" || type === "module" || /(java|ecma)script/.test(type);
    if (!attrs.has("src") && isJs && m[2].trim() !== "") out.push(m[2]);
  }
  return out;
}

export function inlineStyles(html: string): string[] {
  return [...html.replace(HTML_COMMENT, "").matchAll(STYLE)].map((m) => m[1]).filter((s) => s.trim() !== "");
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
