import { findTags, inlineScripts, stripJsComments } from "./html.ts";

/**
 * click_tag_found: index.html declares a click tag the ad server can fill in — in its inline scripts, or in a script
 * file of the zip that index.html loads with <script src> (a clickTag in "main.js" is as much index.html's as an
 * inline one: the ad server fills it into the page's global scope either way). Files index.html does not load do not
 * count (a leftover or a second, unused HTML entry point says nothing about what index.html does).
 *
 * Counted (in those scripts, comments removed; identifier case-insensitive, optional digits, so
 * clickTag, clickTAG, clicktag, clickTag1, clickTAG2 …):
 *  - IAB / Google / CM360 style declarations and assignments: `var|let|const clickTag = …`, `var clickTag;`,
 *    bare `clickTag = …`, `window.clickTag = …`, `window["clickTag"] = …`;
 *  - vendor calls that register a *named clickTag parameter* with a default, which the ad server then overrides:
 *    Adobe Advertising `amo.registerClick("clickTag", url)`, Adform `dhtml.getVar("clickTAG", url)`.
 * Not counted: vendor exit APIs that declare no clickTag — DoubleClick Studio `Enabler.exit(…)`, Sizmek
 * `EB.clickthrough()`, AppNexus `APPNEXUS.click()` / `APPNEXUS.getClickTag()`, GWD exit events. They work only
 * with that vendor's serving and are reported through html5_library / the render, not as a generic click tag.
 */
const DECLARATION = [
  /(?:^|[^.\w$])(?:var|let|const)\s+clicktag\d*\s*[=;,\n]/i,
  /(?:^|[^.\w$])clicktag\d*\s*=(?![=>])/i,
  /\bwindow\s*\.\s*clicktag\d*\s*=(?![=>])/i,
  /\bwindow\s*\[\s*(["'])clicktag\d*\1\s*\]\s*=(?!=)/i,
  /\bamo\s*\.\s*registerClick\s*\(\s*(["'])clicktag\d*\1/i,
  /\bdhtml\s*\.\s*getVar\s*\(\s*(["'])clicktag\d*\1/i,
];

function declares(script: string): boolean {
  const code = stripJsComments(script);
  return DECLARATION.some((re) => re.test(code));
}

/**
 * Zip paths of the scripts index.html loads from the zip: each <script src> resolved as the browser resolves it when
 * the creative is served — against the entry, with the creative's root (the entry's folder) as the origin's root, so
 * "/js/a.js" is "<root>js/a.js"; absolute URLs to other hosts are not in the zip.
 */
export function localScriptPaths(indexHtml: string, entryPath: string): string[] {
  const root = entryPath.slice(0, entryPath.lastIndexOf("/") + 1);
  const base = new URL(`https://zip.invalid/${entryPath.slice(root.length)}`);
  const out: string[] = [];
  for (const tag of findTags(indexHtml, "script")) {
    const src = tag.attrs.get("src")?.trim();
    if (!src) continue;
    let u: URL;
    try {
      u = new URL(src, base);
    } catch {
      continue;
    }
    if (u.origin !== base.origin) continue;
    let path = u.pathname;
    try {
      path = decodeURIComponent(path);
    } catch {
      /* keep it encoded */
    }
    out.push(root + path.slice(1));
  }
  return out;
}

/** `scriptFile(path)`: the text of a zip file by its stored path, or undefined when the zip has no such file. */
export function clickTagFound(indexHtml: string, entryPath = "index.html", scriptFile: (path: string) => string | undefined = () => undefined): boolean {
  if (inlineScripts(indexHtml).some(declares)) return true;
  return localScriptPaths(indexHtml, entryPath).some((p) => {
    const text = scriptFile(p);
    return text !== undefined && declares(text);
  });
}

// A mention of the click tag that is not its declaration: `window.open(clickTag)`, `location.href = clickTAG`,
// `href="javascript:window.open(window.clickTag)"`, `amo.onAdClick("clickTag")`, `getParameterByName("clickTag")`.
const MENTION = /\bclicktag\d*\b/gi;
const DECLARED_BEFORE = /(?:\b(?:var|let|const)\s+|\bregisterClick\s*\(\s*["']?)$/i;
const ASSIGNED_AFTER = /^\s*(?:["']\s*\]\s*)?=(?![=>])/;

function uses(code: string): boolean {
  for (const m of code.matchAll(MENTION)) {
    const before = code.slice(Math.max(0, m.index - 40), m.index);
    const after = code.slice(m.index + m[0].length, m.index + m[0].length + 8);
    if (DECLARED_BEFORE.test(before) || ASSIGNED_AFTER.test(after)) continue;
    return true;
  }
  return false;
}

/**
 * The click tag is used, not only declared: index.html (its scripts and on*, href attributes) or a script it loads
 * reads it — the IAB pattern `window.open(window.clickTag)`. A clickTag that is declared and never read sends no
 * click anywhere; the render's click-through (landing_page) is the other evidence the analyzer adds.
 */
export function clickTagUsed(indexHtml: string, entryPath = "index.html", scriptFile: (path: string) => string | undefined = () => undefined): boolean {
  if (uses(stripJsComments(indexHtml.replace(/<!--[\s\S]*?-->/g, "")))) return true;
  return localScriptPaths(indexHtml, entryPath).some((p) => {
    const text = scriptFile(p);
    return text !== undefined && uses(stripJsComments(text));
  });
}
