import { inlineScripts, stripJsComments } from "./html.ts";

/**
 * click_tag_found: index.html declares a click tag the ad server can fill in.
 *
 * Counted (in index.html's inline scripts, comments removed; identifier case-insensitive, optional digits, so
 * clickTag, clickTAG, clicktag, clickTag1, clickTAG2 …):
 *  - IAB / Google / CM360 style declarations and assignments: `var|let|const clickTag = …`, `var clickTag;`,
 *    bare `clickTag = …`, `window.clickTag = …`, `window["clickTag"] = …`;
 *  - vendor calls that register a *named clickTag parameter* with a default, which the ad server then overrides:
 *    Adobe Advertising `amo.registerClick("clickTag", url)`, Adform `dhtml.getVar("clickTAG", url)`.
 * Not counted: vendor exit APIs that declare no clickTag — DoubleClick Studio `Enabler.exit(…)`, Sizmek
 * `EB.clickthrough()`, AppNexus `APPNEXUS.click()` / `APPNEXUS.getClickTag()`, GWD exit events. They work only
 * with that vendor's serving and are reported through html5_library / the render, not as a generic click tag.
 * External .js files are not searched: the field is defined on index.html, where ad servers expect the declaration.
 */
const DECLARATION = [
  /(?:^|[^.\w$])(?:var|let|const)\s+clicktag\d*\s*[=;,\n]/i,
  /(?:^|[^.\w$])clicktag\d*\s*=(?![=>])/i,
  /\bwindow\s*\.\s*clicktag\d*\s*=(?![=>])/i,
  /\bwindow\s*\[\s*(["'])clicktag\d*\1\s*\]\s*=(?!=)/i,
  /\bamo\s*\.\s*registerClick\s*\(\s*(["'])clicktag\d*\1/i,
  /\bdhtml\s*\.\s*getVar\s*\(\s*(["'])clicktag\d*\1/i,
];

export function clickTagFound(indexHtml: string): boolean {
  return inlineScripts(indexHtml).some((script) => {
    const code = stripJsComments(script);
    return DECLARATION.some((re) => re.test(code));
  });
}
