// @ts-check
// `cva scan <creative>`: pick the endpoint, send the scan, print the result in the chosen format, and answer with the
// exit status a pipeline acts on — 0 every test passed, 1 a test failed or could not be evaluated, 2 the scan did
// not run (bad arguments, unreadable file, network, or an API error, printed with its error_type and message).
import { open, readFile, writeFile } from "node:fs/promises";
import { basename, resolve } from "node:path";
import { scan } from "./api.mjs";
import { parseArgs, USAGE, UsageError } from "./args.mjs";
import { detectKind, ENDPOINTS, HEAD_BYTES, isVastUrl } from "@cva/creative-kind";
import { render } from "./formats.mjs";
import { exitCodeOf, flattenTests } from "./results.mjs";

/** @typedef {import("@cva/creative-kind").Kind} Kind */

export const DEFAULT_BASE_URL = "http://localhost:8080";

/**
 * @typedef {object} Io
 * @property {Record<string, string | undefined>} env
 * @property {{ write(s: string): unknown, isTTY?: boolean }} stdout
 * @property {{ write(s: string): unknown }} stderr
 * @property {string} cwd
 */

export async function version() {
  const pkg = JSON.parse(await readFile(new URL("../package.json", import.meta.url), "utf8"));
  return String(pkg.version);
}

/** @param {string[]} argv @param {Io} io @returns {Promise<0 | 1 | 2>} */
export async function main(argv, io) {
  /** @type {ReturnType<typeof parseArgs>} */
  let args;
  try {
    args = parseArgs(argv);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    io.stderr.write(`cva: ${err.message}\nRun \`cva --help\` for the usage.\n`);
    return 2;
  }
  if (args.command === "help") {
    io.stdout.write(USAGE);
    return 0;
  }
  const cliVersion = await version();
  if (args.command === "version") {
    io.stdout.write(`${cliVersion}\n`);
    return 0;
  }

  const baseUrl = args.baseUrl ?? (io.env.CVA_BASE_URL || DEFAULT_BASE_URL);
  const apiKey = io.env.CVA_API_KEY ?? "";
  const fail = (/** @type {string} */ message) => {
    io.stderr.write(`cva: ${message}\n`);
    return /** @type {const} */ (2);
  };
  if (!/^https?:\/\/[^/]/i.test(baseUrl)) return fail(`CVA_BASE_URL must be an http(s) URL, got ${JSON.stringify(baseUrl)}`);
  if (!apiKey) return fail("set CVA_API_KEY to your API key");

  /** @type {Kind} */
  let kind;
  const input = args.input;
  if (isVastUrl(input)) {
    kind = args.kind ?? "vast";
    if (kind === "tag" || kind === "zip") return fail(`a URL is scanned as a VAST tag, or with --kind video|image|audio as a media file the server fetches; an ${kind === "tag" ? "ad tag" : "zip"} must be a local file`);
  }
  else {
    let head;
    try {
      const fh = await open(resolve(io.cwd, input), "r");
      try {
        const buf = Buffer.alloc(HEAD_BYTES);
        const { bytesRead } = await fh.read(buf, 0, HEAD_BYTES, 0);
        head = buf.subarray(0, bytesRead);
      } finally {
        await fh.close();
      }
    } catch (err) {
      const code = /** @type {{ code?: string }} */ (err).code;
      return fail(`cannot read ${input}: ${code === "ENOENT" ? "no such file" : code === "EISDIR" ? "it is a directory" : code ?? String(err)}`);
    }
    if (args.kind) kind = args.kind;
    else {
      const d = detectKind(input, head);
      if (!d.kind) return fail(`${d.why}; pass --kind tag|zip|video|image|audio`);
      kind = d.kind;
    }
    if (kind === "vast") return fail("--kind vast needs the VAST tag's http(s) URL, not a file");
  }

  const startedAt = new Date();
  const outcome = await scan({
    baseUrl,
    apiKey,
    kind,
    input: isVastUrl(input) ? input : resolve(io.cwd, input),
    specId: args.specId,
    workspaceId: args.workspaceId,
    name: args.name ?? (isVastUrl(input) ? input : basename(input)),
    timeoutMs: args.timeoutS * 1000,
    retries: args.retries,
    userAgent: `cva-cli/${cliVersion} node/${process.versions.node}`,
    log: (line) => io.stderr.write(`${line}\n`),
  });
  const info = { input, kind, endpoint: ENDPOINTS[kind], specId: args.specId, baseUrl, version: cliVersion, ms: outcome.ms, startedAt };

  /** @type {import("./formats.mjs").Outcome} */
  let result;
  /** @type {0 | 1 | 2} */
  let code;
  if (outcome.ok && outcome.report.scan_results && typeof outcome.report.scan_results === "object") {
    const tests = flattenTests(/** @type {any} */ (outcome.report.scan_results).tests);
    result = { kind: "report", info, report: outcome.report, text: outcome.text, tests };
    code = exitCodeOf(tests);
  } else if (outcome.ok) {
    result = { kind: "error", info, errorType: "unexpected_report", message: "the report has no scan_results", text: "" };
    code = 2;
  } else {
    result = { kind: "error", info, errorType: outcome.errorType, message: outcome.message, text: outcome.text };
    code = 2;
  }

  const color = io.stdout.isTTY === true && !io.env.NO_COLOR;
  // Errors always go to stderr, so a pipeline's log says why even when stdout is redirected to a file; stdout (or
  // --output) gets the document of the chosen format — for an error, the JUnit/SARIF/JSON that says so, as CI
  // test views read those files whatever happened.
  if (result.kind === "error") io.stderr.write(`cva: ${result.errorType}: ${result.message}\n`);
  const document = result.kind === "error" && args.format === "text" ? "" : render(result, args.format, { color: color && !args.output });
  if (args.output) {
    try {
      await writeFile(resolve(io.cwd, args.output), document);
    } catch (err) {
      return fail(`cannot write ${args.output}: ${/** @type {{ code?: string }} */ (err).code ?? String(err)}`);
    }
    if (result.kind === "report" && args.format !== "text") io.stdout.write(render(result, "text", { color }));
  } else {
    io.stdout.write(document);
  }
  return code;
}
