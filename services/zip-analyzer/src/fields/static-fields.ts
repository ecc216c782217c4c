import type { ExtractedFile } from "../extract/extract.ts";
import { clickTagFound, clickTagUsed } from "./click-tag.ts";
import { externalUrlsInCss, externalUrlsInHtml } from "./external-assets.ts";
import { fileStructure, type FileEntry } from "./file-structure.ts";
import { decodeText } from "./html.ts";
import { html5Library } from "./html5-library.ts";
import { metaAdSize, type AdSize } from "./meta-ad-size.ts";
import { minifyCandidates, type MinifyCandidate } from "./minified.ts";

/** The zip fields that need no browser: pure functions of the extracted files and the entry file. */
export interface StaticFields {
  fileStructure: FileEntry[];
  clickTagFound: boolean;
  /** The click tag is read by index.html or a script it loads (not only declared). */
  clickTagUsed: boolean;
  adSize: AdSize;
  html5Library: string;
  /** Absolute / protocol-relative asset URLs found in HTML and CSS. */
  staticExternalUrls: string[];
  /** Input for the (asynchronous, worker-thread) minified check. */
  minifyCandidates: MinifyCandidate[];
  /** Whether some HTML, CSS or JS file of the zip names this file (by its base name): it is part of the creative. */
  isReferenced(name: string): boolean;
}

const TEXT_TYPES = new Set(["html", "script", "style", "data"]);

export function computeStaticFields(files: readonly ExtractedFile[], entryPath: string): StaticFields {
  const entries = fileStructure(files);
  const withText = files.map((f, i) => ({
    name: f.name,
    entry: entries[i],
    text: TEXT_TYPES.has(entries[i].type) ? decodeText(f.data) : undefined,
  }));
  const index = withText.find((f) => f.name === entryPath)?.text ?? "";
  const staticExternalUrls: string[] = [];
  for (const f of withText) {
    if (f.text === undefined) continue;
    if (f.entry.type === "html") staticExternalUrls.push(...externalUrlsInHtml(f.text));
    else if (f.entry.type === "style") staticExternalUrls.push(...externalUrlsInCss(f.text));
  }
  const scriptFile = (path: string) => withText.find((f) => f.name === path && f.entry.type === "script")?.text;
  const code = withText.filter((f) => f.text !== undefined && f.entry.type !== "data").map((f) => f.text!);
  return {
    fileStructure: entries,
    clickTagFound: clickTagFound(index, entryPath, scriptFile),
    clickTagUsed: clickTagUsed(index, entryPath, scriptFile),
    isReferenced: (name) => {
      const base = name.slice(name.lastIndexOf("/") + 1);
      return base !== "" && code.some((t) => t.includes(base));
    },
    adSize: metaAdSize(index),
    html5Library: html5Library(withText),
    staticExternalUrls,
    minifyCandidates: minifyCandidates(withText),
  };
}
