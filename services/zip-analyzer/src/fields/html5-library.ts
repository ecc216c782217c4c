import type { FileEntry } from "./file-structure.ts";

/**
 * html5_library: animation / ad-authoring libraries recognised by signatures in file names (local copies) and in
 * the text of HTML and JS files (inlined copies, CDN <script> URLs, generator markers, characteristic globals).
 * Several are joined with ", " in the fixed order below; "" when none. Signatures are chosen to be specific
 * (e.g. GSAP's `_gsScope`, GWD's `gwd-page`, Hype's `HYPE.documents`) so a mere word in a comment rarely counts.
 */
interface Signature {
  name: string;
  file?: RegExp;
  content: RegExp;
}

const SIGNATURES: Signature[] = [
  {
    name: "GSAP",
    file: /(?:^|\/)(?:gsap|tweenmax|tweenlite|timelinemax|timelinelite)[\w.-]*\.js$/i,
    content: /\b_gsScope\b|GreenSockGlobals|\b(?:TweenMax|TweenLite|TimelineMax|TimelineLite)\b|\bgsap\.(?:to|from|fromTo|set|timeline|registerPlugin)\s*\(|greensock\.com|\/gsap[/@]/,
  },
  {
    name: "CreateJS",
    file: /(?:^|\/)(?:createjs|easeljs|tweenjs|preloadjs|soundjs)[\w.-]*\.js$/i,
    content: /\bcreatejs\s*\.\s*(?:Stage|Ticker|LoadQueue|Tween|MovieClip|Container|Bitmap|Shape)\b|\bAdobeAn\b|code\.createjs\.com/,
  },
  {
    name: "Google Web Designer",
    file: /(?:^|\/)gwd[\w.-]*\.js$/i,
    content: /<gwd-|\bgwd-(?:page|pagedeck|google-ad|genericad|image|taparea|doubleclick)\b|\bgwdpage\b|Google Web Designer/,
  },
  {
    name: "Hype",
    file: /_hype_generated_script\.js$|\.hyperesources\//i,
    content: /\bHYPE\.documents\b|\bHYPE_DOCUMENTS\b|_hype_generated_script|\bHYPE_\d{3}\b/,
  },
  {
    name: "jQuery",
    file: /(?:^|\/)jquery[\w.-]*\.js$/i,
    content: /jQuery\.fn\.jquery|jQuery JavaScript Library|jquery\.org\/license|\bjQuery\.fn\.init\b|code\.jquery\.com\/jquery|ajax\/libs\/jquery\//,
  },
  {
    name: "anime.js",
    file: /(?:^|\/)anime(?:\.min|\.es)?\.js$/i,
    content: /animejs\.com|\banime\.(?:timeline|stagger)\s*\(|\/animejs[/@]/,
  },
  {
    name: "PixiJS",
    file: /(?:^|\/)pixi[\w.-]*\.js$/i,
    content: /\bPIXI\.(?:Application|Sprite|Container|VERSION|Graphics)\b|pixijs\.com|\/pixi(?:\.js)?[/@]/,
  },
  {
    name: "Three.js",
    file: /(?:^|\/)three(?:\.module|\.min|\.core)*\.js$/i,
    content: /\bTHREE\.(?:WebGLRenderer|Scene|PerspectiveCamera|REVISION)\b|threejs\.org\/license|\/three(?:\.js)?[/@]/,
  },
  {
    name: "Velocity",
    file: /(?:^|\/)velocity(?:\.ui)?(?:\.min)?\.js$/i,
    content: /\bVelocity\.(?:animate|Utilities|RegisterEffect)\b|VelocityJS\.org|\/velocity(?:-animate)?[/@]/,
  },
  {
    name: "Lottie",
    file: /(?:^|\/)(?:lottie|bodymovin)[\w.-]*\.js$/i,
    content: /\bbodymovin\b|\blottie\s*\.\s*loadAnimation\b|lottie-web|\/lottie(?:\.min)?\.js/,
  },
  {
    name: "Adobe Edge Animate",
    file: /_edge\.js$|(?:^|\/)edge\.\d[\d.]*(?:\.min)?\.js$/i,
    content: /\bAdobeEdge\b/,
  },
];

/** Longest text prefix searched per file: libraries announce themselves early, bundles can be big. */
const MAX_SCAN_CHARS = 4 * 1024 * 1024;

export function detectHtml5Libraries(files: ReadonlyArray<{ entry: FileEntry; text?: string }>): string[] {
  const found = new Set<string>();
  for (const sig of SIGNATURES) {
    for (const { entry, text } of files) {
      if (sig.file?.test(entry.name)) found.add(sig.name);
      else if (text !== undefined && (entry.type === "html" || entry.type === "script")) {
        if (sig.content.test(text.length > MAX_SCAN_CHARS ? text.slice(0, MAX_SCAN_CHARS) : text)) found.add(sig.name);
      }
      if (found.has(sig.name)) break;
    }
  }
  return SIGNATURES.map((s) => s.name).filter((n) => found.has(n));
}

export function html5Library(files: ReadonlyArray<{ entry: FileEntry; text?: string }>): string {
  return detectHtml5Libraries(files).join(", ");
}
