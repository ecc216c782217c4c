/**
 * A cheap, linear pass over the XML text before any parser sees it. It refuses what a parser must never be asked to
 * handle: DTDs (`<!DOCTYPE`, `<!ENTITY` — billion laughs, external entities), absurd nesting (100 000 nested
 * elements would otherwise cost a deep stack or a huge tag stack) and absurd element counts. It stops at the first
 * violation, so hostile input costs at most one scan of ≤ 2 MB. It does not check well-formedness; the validator does.
 */

export type PreflightResult = { ok: true; elements: number; maxDepth: number } | { ok: false; reason: string };

export function preflightXml(text: string, limits: { maxDepth: number; maxElements: number }): PreflightResult {
  let depth = 0;
  let maxDepth = 0;
  let elements = 0;
  const n = text.length;
  let i = text.indexOf("<");
  while (i !== -1 && i < n) {
    const next = text.charCodeAt(i + 1);
    if (next === 0x21 /* ! */) {
      if (text.startsWith("<!--", i)) {
        const end = text.indexOf("-->", i + 4);
        if (end === -1) return { ok: true, elements, maxDepth }; // unterminated: the validator reports it
        i = text.indexOf("<", end + 3);
        continue;
      }
      if (text.startsWith("<![CDATA[", i)) {
        const end = text.indexOf("]]>", i + 9);
        if (end === -1) return { ok: true, elements, maxDepth };
        i = text.indexOf("<", end + 3);
        continue;
      }
      // Anything else after "<!" is a markup declaration (DOCTYPE, ENTITY, ELEMENT, ATTLIST, NOTATION).
      const word = text.slice(i + 2, i + 10).toUpperCase();
      const what = word.startsWith("DOCTYPE") ? "a DOCTYPE" : "a DTD declaration";
      return {
        ok: false,
        reason: `the XML document contains ${what}; DTDs are refused (no entity expansion or external entities)`,
      };
    }
    if (next === 0x3f /* ? */) {
      const end = text.indexOf("?>", i + 2);
      if (end === -1) return { ok: true, elements, maxDepth };
      i = text.indexOf("<", end + 2);
      continue;
    }
    if (next === 0x2f /* / */) {
      if (depth > 0) depth--;
      i = text.indexOf("<", i + 2);
      continue;
    }
    // A start tag: find its end, skipping quoted attribute values (they may hold '>').
    let j = i + 1;
    let quote = 0;
    for (; j < n; j++) {
      const c = text.charCodeAt(j);
      if (quote) {
        if (c === quote) quote = 0;
      } else if (c === 0x22 || c === 0x27) {
        quote = c;
      } else if (c === 0x3e /* > */ || c === 0x3c /* < */) {
        break;
      }
    }
    elements++;
    if (elements > limits.maxElements) {
      return { ok: false, reason: `the XML document has more than ${limits.maxElements} elements` };
    }
    const selfClosing = j < n && text.charCodeAt(j) === 0x3e && text.charCodeAt(j - 1) === 0x2f;
    if (!selfClosing) {
      depth++;
      if (depth > maxDepth) maxDepth = depth;
      if (depth > limits.maxDepth) {
        return { ok: false, reason: `the XML document nests elements deeper than ${limits.maxDepth} levels` };
      }
    }
    if (j >= n) break;
    i = text.charCodeAt(j) === 0x3c ? j : text.indexOf("<", j + 1);
  }
  return { ok: true, elements, maxDepth };
}
