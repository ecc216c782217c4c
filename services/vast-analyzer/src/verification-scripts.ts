import type { VastVerification } from "@cva/contracts";
import { OutboundError } from "@cva/platform";
import { mapBounded } from "./concurrency.ts";
import { describeFetchError } from "./errors.ts";
import { playerGet, type FetchContext } from "./fetch-document.ts";
import { expandMacros } from "./macros.ts";
import { chargeForFailure, DEADLINE_REACHED } from "./scan-budget.ts";
import { isHttpUrl, resolveVastUrl } from "./urls.ts";

// Open Measurement verification scripts (AdVerifications/Verification/JavaScriptResource): an OM SDK loads each into
// the page, so we fetch it the same way — a GET of the script, which is content, not a tracker (no measurement event
// is sent by fetching it). A verification is usable when its script is https, answers 2xx with a non-empty body
// served as JavaScript, and the Verification carries the VerificationParameters the vendor's script reads.

/** Scripts fetched at most per scan (distinct URLs), and the largest body read: OM verification scripts are small. */
export const MAX_VERIFICATION_SCRIPTS = 12;
export const VERIFICATION_SCRIPT_MAX_BYTES = 2 * 1024 * 1024;

/** JavaScript MIME types (WHATWG MIME Sniffing "JavaScript MIME type essence"), matched on the essence only. */
const JS_MIME = new Set([
  "application/ecmascript", "application/javascript", "application/x-ecmascript", "application/x-javascript",
  "text/ecmascript", "text/javascript", "text/javascript1.0", "text/javascript1.1", "text/javascript1.2",
  "text/javascript1.3", "text/javascript1.4", "text/javascript1.5", "text/jscript", "text/livescript",
  "text/x-ecmascript", "text/x-javascript",
]);

export function isJavaScriptMime(contentType: string): boolean {
  return JS_MIME.has(contentType.split(";")[0]!.trim().toLowerCase());
}

interface ScriptAnswer {
  checked: boolean;
  reachable: boolean;
  httpCode: number;
  contentType: string;
  problem?: string;
}

/**
 * Fills the checks of every verification of every ad in place (each distinct script URL fetched once, at most
 * MAX_VERIFICATION_SCRIPTS per scan, within the scan's deadline and byte budget). `baseUrls[i]` is what ad i's
 * relative URLs resolve against.
 */
export async function checkVerificationScripts(perAd: VastVerification[][], baseUrls: string[], ctx: FetchContext): Promise<void> {
  const answers = new Map<string, Promise<ScriptAnswer>>();
  const order: string[] = [];
  const fetchOnce = (href: string): Promise<ScriptAnswer> => {
    let p = answers.get(href);
    if (!p) {
      order.push(href);
      p = order.length > MAX_VERIFICATION_SCRIPTS
        ? Promise.resolve({ checked: false, reachable: false, httpCode: 0, contentType: "", problem: `not fetched: more than ${MAX_VERIFICATION_SCRIPTS} verification scripts in the scan` })
        : fetchScript(href, ctx);
      answers.set(href, p);
    }
    return p;
  };
  const all = perAd.flatMap((vs, ad) => vs.map((v) => ({ v, base: baseUrls[ad] })));
  await mapBounded(all, ctx.limits.pixelConcurrency, async ({ v, base }) => {
    const problems: string[] = [];
    if (v.javascriptResourceUrl === "") problems.push("the Verification has no JavaScriptResource URL: there is no script to load");
    const url = v.javascriptResourceUrl === "" ? undefined : resolveVastUrl(v.javascriptResourceUrl, base);
    if (v.javascriptResourceUrl !== "" && !v.https) problems.push("the JavaScriptResource is not https: an OM SDK on an https page cannot load it");
    if (!v.hasParameters) problems.push("no VerificationParameters: the vendor's script is given nothing to measure with");
    if (isHttpUrl(url)) {
      const a = await fetchOnce(url.href);
      v.checked = a.checked;
      v.reachable = a.reachable;
      v.httpCode = a.httpCode;
      v.contentType = a.contentType;
      v.javascriptMime = a.reachable && isJavaScriptMime(a.contentType);
      if (a.problem) problems.push(a.problem);
      else if (!v.javascriptMime) problems.push(`the script is served as ${JSON.stringify(a.contentType || "(no Content-Type)")}, not a JavaScript MIME type: a browser refuses to run it when it is sent with X-Content-Type-Options: nosniff`);
    } else if (v.javascriptResourceUrl !== "") {
      problems.push(`the JavaScriptResource ${JSON.stringify(v.javascriptResourceUrl.slice(0, 200))} is not an http(s) URL; not fetched`);
    }
    v.problems = problems;
  });
}

async function fetchScript(href: string, ctx: FetchContext): Promise<ScriptAnswer> {
  const none = { checked: false, reachable: false, httpCode: 0, contentType: "" };
  const time = ctx.budget.time(ctx.limits.fetchTimeoutMs);
  if (time.ms <= 0) return { ...none, problem: `not fetched: ${DEADLINE_REACHED}` };
  const grant = await ctx.budget.reserve(VERIFICATION_SCRIPT_MAX_BYTES);
  if (grant.bytes === 0) {
    grant.settle(0);
    return { ...none, problem: "not fetched: the scan's byte budget was reached" };
  }
  try {
    const res = await playerGet(ctx.rewriteUrl(expandMacros(new URL(href))), ctx, grant, time.ms, { accept: "*/*" });
    const contentType = res.headers["content-type"] ?? "";
    const ok = res.status >= 200 && res.status <= 299 && res.body.length > 0;
    return {
      checked: true, reachable: ok, httpCode: res.status, contentType,
      problem: ok ? undefined : res.status < 200 || res.status > 299 ? `the script answered HTTP ${res.status}` : "the script is empty",
    };
  } catch (e) {
    grant.settle(chargeForFailure(e, grant.bytes));
    if (ctx.signal?.aborted) throw ctx.signal.reason ?? e;
    const code = e instanceof OutboundError ? e.code : undefined;
    if (time.cut && code === "timeout") return { ...none, problem: `not fetched: ${DEADLINE_REACHED}` };
    if (code === "too_large") return { ...none, checked: true, problem: `the script is larger than ${VERIFICATION_SCRIPT_MAX_BYTES / 1024 / 1024} MB` };
    return { ...none, checked: true, problem: `the script could not be loaded: ${describeFetchError(e)}` };
  }
}
