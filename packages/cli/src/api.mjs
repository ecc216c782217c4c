// @ts-check
// One scan request to the public JSON API, with the retries a pipeline wants: a dropped connection, a 502/503/504 in
// front of the edge, or "no worker resources" (processing_error with Retry-After) is tried again — with the same
// Idempotency-Key, so a retry of a scan that did run is answered from its stored report and never charged twice.
import { randomUUID } from "node:crypto";
import { openAsBlob } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { basename } from "node:path";
import { ENDPOINTS } from "@cva/creative-kind";

/** @typedef {import("@cva/creative-kind").Kind} Kind */

/**
 * Media files above this go as multipart/form-data (streamed from disk) instead of base64 in JSON: 8 MiB is 11.2 MB
 * of base64, under the edge's default 15 MB JSON body limit with room for the other fields.
 */
export const MULTIPART_ABOVE_BYTES = 8 * 1024 * 1024;
/** The longest Retry-After the CLI honours; a longer one is waited for only this long. */
const MAX_RETRY_WAIT_S = 30;

/**
 * @typedef {object} ScanRequest
 * @property {string} baseUrl
 * @property {string} apiKey
 * @property {Kind} kind
 * @property {string} input       a file path, or the VAST URL
 * @property {number} specId
 * @property {number | undefined} workspaceId
 * @property {string} name
 * @property {number} timeoutMs   for each attempt
 * @property {number} retries
 * @property {string} userAgent
 * @property {(line: string) => void} log  progress lines (stderr)
 * @property {(ms: number) => Promise<void>} [sleep]
 */

/**
 * @typedef {{ ok: true, status: number, text: string, report: Record<string, unknown>, endpoint: string, ms: number }
 *   | { ok: false, status: number, errorType: string, message: string, text: string, endpoint: string, ms: number }} ScanOutcome
 */

/** The request body for one attempt (a Blob body is re-read on each attempt). @param {ScanRequest} req */
async function bodyOf(req) {
  /** @type {Record<string, string | number>} */
  const fields = { spec_id: req.specId, name: req.name };
  if (req.workspaceId !== undefined) fields.workspace_id = req.workspaceId;
  if (req.kind === "vast") return { json: { data: Buffer.from(req.input, "utf8").toString("base64"), ...fields } };
  // A media file named by URL: the media scans fetch it themselves (`url`, under the server's outbound policy).
  if (/^https?:\/\//i.test(req.input)) return { json: { url: req.input, ...fields } };
  const size = (await stat(req.input)).size;
  if ((req.kind === "video" || req.kind === "image" || req.kind === "audio") && size > MULTIPART_ABOVE_BYTES) {
    // The file part streams from disk (openAsBlob): a 500 MB master is never read into memory.
    const form = new FormData();
    for (const [k, v] of Object.entries(fields)) form.set(k, String(v));
    form.set("file", await openAsBlob(req.input), basename(req.input));
    return { form, size };
  }
  return { json: { data: (await readFile(req.input)).toString("base64"), ...fields } };
}

/** @param {ScanRequest} req @returns {Promise<ScanOutcome>} */
export async function scan(req) {
  const endpoint = ENDPOINTS[req.kind];
  const url = new URL(endpoint, req.baseUrl.endsWith("/") ? req.baseUrl : `${req.baseUrl}/`).href;
  const idempotencyKey = `cva-cli-${randomUUID()}`;
  const sleep = req.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  for (let attempt = 0; ; attempt++) {
    const body = await bodyOf(req);
    /** @type {Record<string, string>} */
    const headers = { "x-apikey": req.apiKey, "idempotency-key": idempotencyKey, "user-agent": req.userAgent, accept: "application/json" };
    if (body.json) headers["content-type"] = "application/json";
    /** @type {Response} */
    let res;
    try {
      res = await fetch(url, {
        method: "POST",
        headers,
        body: body.json ? JSON.stringify(body.json) : body.form,
        signal: AbortSignal.timeout(req.timeoutMs),
      });
    } catch (err) {
      const why = describeFetchError(err, url, req.timeoutMs);
      // A time-out is not retried: the scan may still be running, and the next attempt would wait as long again.
      if (attempt < req.retries && !why.timeout) {
        req.log(`cva: ${why.message}; retrying (${attempt + 1}/${req.retries})`);
        await sleep(1000 * 2 ** attempt);
        continue;
      }
      return { ok: false, status: 0, errorType: why.timeout ? "timeout" : "network_error", message: why.message, text: "", endpoint, ms: elapsed() };
    }
    const text = await res.text();
    /** @type {any} */
    let json;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    if (res.status === 200 && json && typeof json === "object" && !Array.isArray(json)) {
      return { ok: true, status: 200, text, report: json, endpoint, ms: elapsed() };
    }
    const errorType = typeof json?.error_type === "string" ? json.error_type : "http_error";
    const message = typeof json?.message === "string" ? json.message : `HTTP ${res.status} ${res.statusText}${text ? `: ${text.slice(0, 200)}` : ""}`;
    const retryAfter = Number(res.headers.get("retry-after"));
    const retryable = [502, 503, 504].includes(res.status) || (errorType === "processing_error" && Number.isFinite(retryAfter) && retryAfter > 0);
    if (retryable && attempt < req.retries) {
      const waitS = Math.min(Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : 2 ** attempt, MAX_RETRY_WAIT_S);
      req.log(`cva: ${errorType}: ${message}; retrying in ${waitS} s (${attempt + 1}/${req.retries})`);
      await sleep(waitS * 1000);
      continue;
    }
    return { ok: false, status: res.status, errorType, message, text, endpoint, ms: elapsed() };
  }
}

/** What went wrong before any answer, in words (the cause's code: ECONNREFUSED, ENOTFOUND, …). */
function describeFetchError(/** @type {unknown} */ err, /** @type {string} */ url, /** @type {number} */ timeoutMs) {
  const e = /** @type {{ name?: string, message?: string, cause?: { code?: string, message?: string } }} */ (err);
  if (e?.name === "TimeoutError" || e?.name === "AbortError") return { timeout: true, message: `no answer from ${url} within ${Math.round(timeoutMs / 1000)} s` };
  const cause = e?.cause?.code ?? e?.cause?.message ?? e?.message ?? String(err);
  return { timeout: false, message: `could not reach ${url}: ${cause}` };
}
