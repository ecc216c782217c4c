// @ts-check
// The command line of `cva`: `cva scan <input> [options]`, `cva help`, `cva --version`. Hand-written (no dependency):
// `--opt value` and `--opt=value`, every value checked, anything unknown refused with what was wrong.
import { KINDS } from "@cva/creative-kind";
import { FORMATS } from "./formats.mjs";

/** @typedef {import("@cva/creative-kind").Kind} Kind */
/** @typedef {import("./formats.mjs").Format} Format */

/**
 * @typedef {{ command: "help" } | { command: "version" } | {
 *   command: "scan", input: string, specId: number, format: Format, name: string | undefined, workspaceId: number | undefined,
 *   kind: Kind | undefined, output: string | undefined, baseUrl: string | undefined, timeoutS: number, retries: number
 * }} Args
 */

export const USAGE = `Usage: cva scan <creative> [options]

Scans a creative with the Creative Validation API and prints its test results.
  <creative>  a file — banner.zip, tag.html (.htm, .txt), video.mp4, image.png, audio.mp3 — or the
              https:// URL of a VAST tag. The endpoint is chosen from the file's first bytes and name:
              zip → /v3/scanZip, HTML → /v3/scanTag, video/image/audio → /v3/scanVideo|Image|Audio,
              URL → /v3/scanVAST.

Options:
  --spec <id>          specification set to test against (default 0, IAB guidelines)
  --format <format>    text (default), json (the report as the API returned it), junit, sarif
  --output <file>      write the formatted report to <file>; the text summary still goes to stdout
  --name <name>        name stored with the report (default: the file name or the URL)
  --workspace <id>     workspace to store the report in
  --kind <kind>        skip detection: tag, zip, vast, video, image or audio (with a URL: video,
                       image or audio sends the URL for the server to fetch the file)
  --base-url <url>     API base URL (default: $CVA_BASE_URL, else http://localhost:8080)
  --timeout <seconds>  how long to wait for one answer (default 600)
  --retries <n>        retries after a dropped connection, a 502/503/504 or "no worker resources" (default 2)
  -h, --help           this text
  -v, --version        the CLI's version

Environment:
  CVA_API_KEY          the API key (required; sent as X-ApiKey)
  CVA_BASE_URL         API base URL

Exit status: 0 every test passed; 1 a test failed or could not be evaluated; 2 the scan did not run
(bad arguments, network, or an API error — its error_type and message are printed).
`;

export class UsageError extends Error {}

const VALUE_OPTIONS = new Set(["--spec", "--format", "--output", "--name", "--workspace", "--kind", "--base-url", "--timeout", "--retries"]);

/** A non-negative integer option value. */
function integer(/** @type {string} */ opt, /** @type {string} */ v, /** @type {number} */ max) {
  if (!/^\d{1,16}$/.test(v) || Number(v) > max) throw new UsageError(`${opt}: must be an integer from 0 to ${max}, got ${JSON.stringify(v)}`);
  return Number(v);
}

/** @param {string[]} argv @returns {Args} */
export function parseArgs(argv) {
  // No command is a misuse, as an unknown one is: a pipeline step `cva` with its arguments lost must fail, not pass.
  if (argv.length === 0) throw new UsageError("no command given: the command is `cva scan <creative>`");
  if (argv.includes("-h") || argv.includes("--help") || argv[0] === "help") return { command: "help" };
  if (argv[0] === "-v" || argv[0] === "--version" || argv[0] === "version") return { command: "version" };
  if (argv[0] !== "scan") throw new UsageError(`unknown command ${JSON.stringify(argv[0])}: the command is \`cva scan <creative>\``);
  /** @type {Map<string, string>} */
  const opts = new Map();
  /** @type {string[]} */
  const positional = [];
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i] ?? "";
    if (a === "--") {
      positional.push(...argv.slice(i + 1));
      break;
    }
    if (a.startsWith("--")) {
      const eq = a.indexOf("=");
      const key = eq > 0 ? a.slice(0, eq) : a;
      if (!VALUE_OPTIONS.has(key)) throw new UsageError(`unknown option ${key}`);
      const value = eq > 0 ? a.slice(eq + 1) : argv[++i];
      if (value === undefined) throw new UsageError(`${key}: needs a value`);
      if (opts.has(key)) throw new UsageError(`${key}: given twice`);
      opts.set(key, value);
    } else positional.push(a);
  }
  if (positional.length === 0) throw new UsageError("scan: name the creative to scan (a file or a VAST URL)");
  if (positional.length > 1) throw new UsageError(`scan: one creative at a time, got ${positional.length} (${positional.join(", ")})`);
  const format = opts.get("--format") ?? "text";
  if (!(/** @type {string[]} */ (FORMATS)).includes(format)) throw new UsageError(`--format: must be one of ${FORMATS.join(", ")}, got ${JSON.stringify(format)}`);
  const kind = opts.get("--kind");
  if (kind !== undefined && !(/** @type {string[]} */ (KINDS)).includes(kind)) throw new UsageError(`--kind: must be one of ${KINDS.join(", ")}, got ${JSON.stringify(kind)}`);
  const workspace = opts.get("--workspace");
  const baseUrl = opts.get("--base-url");
  if (baseUrl !== undefined && !/^https?:\/\/[^/]/i.test(baseUrl)) throw new UsageError(`--base-url: must be an http(s) URL, got ${JSON.stringify(baseUrl)}`);
  const timeout = opts.get("--timeout");
  return {
    command: "scan",
    input: positional[0] ?? "",
    specId: integer("--spec", opts.get("--spec") ?? "0", Number.MAX_SAFE_INTEGER),
    format: /** @type {Format} */ (format),
    name: opts.get("--name"),
    workspaceId: workspace === undefined ? undefined : integer("--workspace", workspace, Number.MAX_SAFE_INTEGER),
    kind: /** @type {Kind | undefined} */ (kind),
    output: opts.get("--output"),
    baseUrl,
    timeoutS: timeout === undefined ? 600 : Math.max(1, integer("--timeout", timeout, 86_400)),
    retries: integer("--retries", opts.get("--retries") ?? "2", 10),
  };
}
