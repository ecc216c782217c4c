import { XMLParser, XMLValidator } from "fast-xml-parser";
import { preflightXml } from "./xml-preflight.ts";

/** One element, reduced to what VAST needs: local name, attributes, direct text (CDATA included), children. */
export interface XmlNode {
  /** Local name: a namespace prefix is dropped (`vmap:VMAP` → `VMAP`). */
  name: string;
  attrs: Map<string, string>;
  children: XmlNode[];
  /** Direct character data, entities decoded, CDATA sections appended as written; not trimmed. */
  text: string;
  /** 1-based line of the start tag in the document (0 when unknown). */
  line: number;
  /** True when the direct character data holds a CDATA section. */
  cdata: boolean;
}

export type XmlParseResult =
  | { ok: true; root: XmlNode }
  | { ok: false; refused: boolean; reason: string };

export interface XmlParseLimits {
  maxDepth: number;
  maxElements: number;
}

// Tag and attribute names get a prefix inside the parser so that names such as "constructor" or "__proto__" never
// become object keys of their own; the prefix is removed again when the tree is built.
const NAME_PREFIX = "$";

function newParser(maxDepth: number): XMLParser {
  return new XMLParser({
    preserveOrder: true,
    ignoreAttributes: false,
    attributeNamePrefix: "",
    allowBooleanAttributes: true,
    parseTagValue: false,
    parseAttributeValue: false,
    trimValues: false,
    cdataPropName: "#cdata",
    commentPropName: false,
    ignoreDeclaration: true,
    ignorePiTags: true,
    // Entities are decoded by decodeXmlEntities below: only the five XML ones and character references. With DTDs
    // refused up front there is nothing else a conforming document can use.
    processEntities: false,
    htmlEntities: false,
    maxNestedTags: maxDepth + 1,
    // Start offsets of every tag (CR LF counted as written), turned into line numbers for lint findings.
    captureMetaData: true,
    transformTagName: (name) => NAME_PREFIX + name,
    transformAttributeName: (name) => NAME_PREFIX + name,
  });
}

const ENTITY = /&(?:(lt|gt|amp|apos|quot)|#(\d{1,7})|#x([0-9a-fA-F]{1,6}));/g;
const NAMED: Record<string, string> = { lt: "<", gt: ">", amp: "&", apos: "'", quot: '"' };

/** One pass, so "&amp;#65;" stays "&#65;". Unknown references are left as written. */
export function decodeXmlEntities(s: string): string {
  if (!s.includes("&")) return s;
  return s.replace(ENTITY, (whole, named: string | undefined, dec: string | undefined, hex: string | undefined) => {
    if (named) return NAMED[named] ?? whole;
    const cp = dec !== undefined ? Number.parseInt(dec, 10) : Number.parseInt(hex ?? "", 16);
    return cp > 0 && cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff) ? String.fromCodePoint(cp) : whole;
  });
}

/** Bytes → text: BOM first, then the XML declaration's encoding, else UTF-8 (the XML default). */
export function decodeXmlBytes(bytes: Uint8Array): string {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return new TextDecoder("utf-8").decode(bytes.subarray(3));
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder("utf-16le").decode(bytes.subarray(2));
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder("utf-16be").decode(bytes.subarray(2));
  const head = new TextDecoder("latin1").decode(bytes.subarray(0, 200));
  const m = /^\s*<\?xml[^>]*\bencoding\s*=\s*["']([A-Za-z0-9._-]+)["']/.exec(head);
  if (m?.[1]) {
    try {
      return new TextDecoder(m[1].toLowerCase()).decode(bytes);
    } catch {
      // An unknown label: fall through to UTF-8, the XML default.
    }
  }
  return new TextDecoder("utf-8").decode(bytes);
}

function localName(prefixed: string): string {
  // "$" cannot start an XML name, so every leading "$" is ours (fast-xml-parser applies the transform twice to some
  // self-closing tags).
  const name = prefixed.replace(/^\$+/, "");
  const colon = name.indexOf(":");
  return colon >= 0 ? name.slice(colon + 1) : name;
}

type OrderedEntry = Record<string, unknown>;

const META = XMLParser.getMetaDataSymbol() as unknown as string;

/** Offsets of every line start (after LF, CR LF or a lone CR, as XML counts lines), for offset → line. */
function lineStarts(text: string): number[] {
  const starts = [0];
  for (const m of text.matchAll(/\r\n?|\n/g)) starts.push(m.index + m[0].length);
  return starts;
}

function lineAt(starts: readonly number[], offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}

function buildNode(entry: OrderedEntry, starts: readonly number[]): XmlNode | undefined {
  const key = Object.keys(entry).find((k) => k !== ":@");
  if (key === undefined || key === "#text" || key === "#cdata") return undefined;
  const meta = entry[META] as { startIndex?: number } | undefined;
  const line = typeof meta?.startIndex === "number" ? lineAt(starts, meta.startIndex) : 0;
  const node: XmlNode = { name: localName(key), attrs: new Map(), children: [], text: "", line, cdata: false };
  const rawAttrs = entry[":@"];
  if (rawAttrs && typeof rawAttrs === "object") {
    for (const [k, v] of Object.entries(rawAttrs as Record<string, unknown>)) {
      node.attrs.set(localName(k), typeof v === "string" ? decodeXmlEntities(v) : "");
    }
  }
  const kids = entry[key];
  if (Array.isArray(kids)) {
    for (const kid of kids as OrderedEntry[]) {
      if ("#text" in kid) node.text += decodeXmlEntities(String(kid["#text"]));
      else if ("#cdata" in kid) {
        node.cdata = true;
        const parts = kid["#cdata"];
        if (Array.isArray(parts)) for (const p of parts as OrderedEntry[]) node.text += String(p["#text"] ?? "");
      } else {
        const child = buildNode(kid, starts);
        if (child) node.children.push(child);
      }
    }
  }
  return node;
}

/**
 * Parses one XML document safely: preflight (DTD, depth, count), well-formedness (XMLValidator), then the parser with
 * its own nesting bound as a second guard. Never throws; a refused or malformed document comes back as `ok: false`.
 */
export function parseXmlDocument(text: string, limits: XmlParseLimits): XmlParseResult {
  const pre = preflightXml(text, limits);
  if (!pre.ok) return { ok: false, refused: true, reason: pre.reason };
  // The parser and validator do not accept a leading BOM character left over from a decoded string.
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const valid = XMLValidator.validate(body, { allowBooleanAttributes: true });
  if (valid !== true) {
    const e = valid.err;
    return { ok: false, refused: false, reason: `malformed XML at line ${e.line}, column ${e.col}: ${e.msg}` };
  }
  let parsed: unknown;
  try {
    parsed = newParser(limits.maxDepth).parse(body);
  } catch (err) {
    const msg = err instanceof Error ? err.message.replace(/^\[SECURITY\]\s*/, "") : "parse error";
    return { ok: false, refused: false, reason: `malformed XML: ${msg.replaceAll(NAME_PREFIX, "")}` };
  }
  if (!Array.isArray(parsed)) return { ok: false, refused: false, reason: "malformed XML: no root element" };
  const starts = lineStarts(body);
  for (const entry of parsed as OrderedEntry[]) {
    const node = buildNode(entry, starts);
    if (node) return { ok: true, root: node };
  }
  return { ok: false, refused: false, reason: "malformed XML: no root element" };
}

// Small helpers used by the VAST reader. Names compare case-insensitively: real ad servers write "Inline",
// "mediaFile" and the like, and players tolerate it.
export function kids(node: XmlNode | undefined, name: string): XmlNode[] {
  if (!node) return [];
  const lower = name.toLowerCase();
  return node.children.filter((c) => c.name.toLowerCase() === lower);
}

export function kid(node: XmlNode | undefined, name: string): XmlNode | undefined {
  if (!node) return undefined;
  const lower = name.toLowerCase();
  return node.children.find((c) => c.name.toLowerCase() === lower);
}

/** kid(kid(kid(node, a), b), c) */
export function path(node: XmlNode | undefined, ...names: string[]): XmlNode | undefined {
  let cur = node;
  for (const n of names) cur = kid(cur, n);
  return cur;
}

export function textOf(node: XmlNode | undefined): string {
  return node ? node.text.trim() : "";
}

export function attr(node: XmlNode | undefined, name: string): string | undefined {
  if (!node) return undefined;
  const lower = name.toLowerCase();
  for (const [k, v] of node.attrs) if (k.toLowerCase() === lower) return v;
  return undefined;
}

/** Every descendant (depth-first, document order); the depth is bounded by the preflight. */
export function* descendants(node: XmlNode): Generator<XmlNode> {
  for (const c of node.children) {
    yield c;
    yield* descendants(c);
  }
}
