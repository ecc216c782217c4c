// The web console (GET /): one HTML page, two ES modules (the page's and the kind detection it shares with the CLI)
// and one stylesheet, read once at start-up. The
// page gets what the server knows and a static file cannot — the spec sets (data of @cva/spec-sets), the targeting
// values the validators accept, the size limits — filled into its template; the script and stylesheet are served
// under content-hashed names (cached for a year, never stale) with Subresource Integrity, and the page under a CSP
// that admits nothing but them and the API on this origin.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import type { EdgeLimits } from "../ports.ts";

/** The console's Content-Security-Policy: our own script, style and API only; no inline code, no framing. */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "form-action 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  // The script builds its DOM with textContent only; a string reaching an HTML sink is refused outright.
  "require-trusted-types-for 'script'",
].join("; ");

export interface ConsoleAsset {
  body: Buffer;
  contentType: string;
}

export interface ConsoleSite {
  html: string;
  /** By file name under /console/ (e.g. `app.3f2a9c01d4.js`). */
  assets: Map<string, ConsoleAsset>;
}

export interface ConsoleOptions {
  specSets: ReadonlyArray<{ id: number; name: string; description: string }>;
  devices: readonly string[];
  countries: readonly string[];
  limits: EdgeLimits;
}

const COUNTRY_NAMES: Record<string, string> = { usa: "United States", nld: "Netherlands" };
const ENTITIES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
const esc = (v: string | number) => String(v).replace(/[&<>"']/g, (c) => ENTITIES[c] ?? c);

const read = (url: URL) => readFileSync(url);
// Read by URL so the production build copies them next to the bundle (scripts/lib/build.ts, relocateAssets).
const TEMPLATE = () => read(new URL("./page/index.html", import.meta.url)).toString("utf8");
const SCRIPT = () => read(new URL("./page/app.js", import.meta.url));
const STYLE = () => read(new URL("./page/app.css", import.meta.url));
// The kind detection the CLI uses, as one browser module (packages/creative-kind): served beside the script.
const DETECT = () => read(new URL("../../../packages/creative-kind/browser/detect.js", import.meta.url));
/** The console script's import of it, as written for Node (a workspace package). */
const DETECT_SPECIFIER = '"@cva/creative-kind"';

/** "1 MB" for the help texts (binary megabytes, as the limits are set). */
function size(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MB` : `${Math.round(bytes / 1024)} KB`;
}

function hashed(name: string, ext: string, body: Buffer, contentType: string) {
  const file = `${name}.${createHash("sha256").update(body).digest("hex").slice(0, 12)}.${ext}`;
  return { file, href: `/console/${file}`, integrity: `sha384-${createHash("sha384").update(body).digest("base64")}`, asset: { body, contentType } };
}

export function buildConsoleSite(opts: ConsoleOptions): ConsoleSite {
  const detect = hashed("detect", "js", DETECT(), "text/javascript; charset=utf-8");
  // A browser resolves no package names: the import points at the hashed file instead (same origin, so the CSP's
  // 'self' admits it; its name changes with its bytes, so the script's own hash and integrity cover which one).
  const source = SCRIPT().toString("utf8");
  if (!source.includes(`from ${DETECT_SPECIFIER}`)) throw new Error("console script: its import of @cva/creative-kind is missing");
  const script = hashed("app", "js", Buffer.from(source.replaceAll(`from ${DETECT_SPECIFIER}`, `from "${detect.href}"`)), "text/javascript; charset=utf-8");
  const style = hashed("app", "css", STYLE(), "text/css; charset=utf-8");
  const option = (value: string | number, label: string, title?: string) =>
    `            <option value="${esc(value)}"${title ? ` title="${esc(title)}"` : ""}>${esc(label)}</option>`;
  const values: Record<string, string> = {
    STYLE_HREF: style.href,
    STYLE_INTEGRITY: style.integrity,
    SCRIPT_HREF: script.href,
    SCRIPT_INTEGRITY: script.integrity,
    SPEC_SET_OPTIONS: [...opts.specSets].sort((a, b) => a.id - b.id).map((s) => option(s.id, `${s.id} · ${s.name}`, s.description)).join("\n"),
    DEVICE_OPTIONS: opts.devices.map((d) => option(d, d.charAt(0).toUpperCase() + d.slice(1))).join("\n"),
    COUNTRY_OPTIONS: opts.countries.map((c) => option(c, `${COUNTRY_NAMES[c] ?? c.toUpperCase()} (${c})`)).join("\n"),
    MAX_BODY_BYTES: String(opts.limits.maxBodyBytes),
    MAX_TAG_BYTES: String(opts.limits.maxTagBytes),
    MAX_ZIP_BYTES: String(opts.limits.maxZipBytes),
    MAX_NAME_LENGTH: String(opts.limits.maxNameLength),
    MAX_TAG_SIZE: size(opts.limits.maxTagBytes),
    MAX_ZIP_SIZE: size(opts.limits.maxZipBytes),
  };
  const html = TEMPLATE().replace(/\{\{([A-Z_]+)\}\}/g, (m, key: string) => {
    const v = values[key];
    if (v === undefined) throw new Error(`console template: no value for ${m}`);
    return v;
  });
  return { html, assets: new Map([[script.file, script.asset], [style.file, style.asset], [detect.file, detect.asset]]) };
}
