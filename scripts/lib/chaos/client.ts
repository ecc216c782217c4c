// The client of `npm run chaos`: what a careful customer does. Each request carries its own Idempotency-Key and is
// retried with it — on a dropped connection (the edge was killed), a 5xx, or a processing_error (after its
// Retry-After) — until it gets a report or a documented error that retrying cannot change, or its time budget is spent.
// Each attempt waits as long as the edge can take to answer (`attemptMs`), and no longer: an attempt the budget could
// not wait out to that bound is not begun once the request has a documented answer, which then ends it. Cutting an
// attempt short at the budget's end would call "lost" a request the product was still answering in time (CI
// 2026-11-27: a zip begun as the edge was killed, whose attempts each took 20–26 s on a host far beyond its load —
// the running scan's wait, then scans that timed out, each answered — had its sixth attempt cut by the budget in the
// same 0.1 s as the edge logged that scan's time-out, and was counted lost).
import { buildZip } from "../../../test/harness/zip.ts";

export type RequestKind = "tag" | "zip" | "vast";

export const DOCUMENTED_ERRORS = new Set(["authentication_error", "invalid_endpoint", "payload_error", "quota_error", "processing_error"]);

export interface RequestOutcome {
  n: number;
  kind: RequestKind;
  /** report: a 200 with its job; error: a documented error as the last answer; lost: neither within the budget. */
  end: "report" | "error" | "lost";
  jobId?: string;
  errorType?: string;
  /** Answered from the first scan with the same key (Idempotent-Replayed: true). */
  replayed: boolean;
  attempts: number;
  /** Attempts that ended without an HTTP answer (connection refused or reset). */
  dropped: number;
  /** Attempts the edge did not answer within `attemptMs`: a hang, never a fault's effect (a killed edge resets). */
  unanswered: number;
  ms: number;
  /** The last thing that was not a report, for the lost ones. */
  last?: string;
}

const b64 = (s: string | Buffer) => Buffer.from(s).toString("base64");

export function requestFor(n: number, kind: RequestKind, fixtures: { origin: string; vastUrl(n: number): string }): { path: string; body: unknown } {
  switch (kind) {
    case "tag":
      return { path: "/v3/scanTag", body: { data: b64(`<div style="width:300px;height:250px;background:#c00"><img src="${fixtures.origin}/img.gif" width="1" height="1">chaos ${n}</div>`), name: `chaos-${n}` } };
    case "zip":
      return {
        path: "/v2/scanZip",
        body: {
          data: b64(
            buildZip({
              "index.html": `<!doctype html><html><head><meta name="ad.size" content="width=300,height=250"><script>var clickTag = "https://advertiser.example/";</script></head><body style="margin:0"><div style="width:300px;height:250px;background:#06c" onclick="window.open(clickTag)">zip ${n}</div></body></html>`,
            }),
          ),
        },
      };
    case "vast":
      return { path: "/v3/scanVAST", body: { data: b64(fixtures.vastUrl(n)), name: `chaos-${n}` } };
  }
}

export async function runRequest(
  baseUrl: string,
  key: string,
  n: number,
  kind: RequestKind,
  req: { path: string; body: unknown },
  opts: {
    idempotencyKey: string;
    budgetMs: number;
    /** The longest the edge may take to answer one attempt (its scan time-out, RPC time-outs, a retry's wait). */
    attemptMs: number;
  },
): Promise<RequestOutcome> {
  const started = Date.now();
  const end = started + opts.budgetMs;
  const out: RequestOutcome = { n, kind, end: "lost", replayed: false, attempts: 0, dropped: 0, unanswered: 0, ms: 0 };
  const body = JSON.stringify(req.body);
  while (Date.now() < end) {
    // With a documented answer in hand, an attempt the budget cannot wait out ends nothing better.
    if (out.end === "error" && Date.now() + opts.attemptMs > end) break;
    out.attempts++;
    let pause = 250;
    const left = end - Date.now();
    try {
      const r = await fetch(`${baseUrl}${req.path}`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-apikey": key, "idempotency-key": opts.idempotencyKey },
        body,
        signal: AbortSignal.timeout(Math.max(1000, Math.min(opts.attemptMs, left))),
      });
      const text = await r.text();
      let json: { job_id?: unknown; error_type?: unknown; message?: unknown } | undefined;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      if (r.status === 200 && typeof json?.job_id === "string") {
        Object.assign(out, { end: "report", jobId: json.job_id, replayed: r.headers.get("idempotent-replayed") === "true", errorType: undefined, last: undefined });
        break;
      }
      const type = typeof json?.error_type === "string" && DOCUMENTED_ERRORS.has(json.error_type) && typeof json.message === "string" ? json.error_type : undefined;
      if (!type) {
        out.end = "lost";
        out.last = `HTTP ${r.status} without a documented error: ${text.slice(0, 120)}`;
      } else {
        Object.assign(out, { end: "error", errorType: type, last: `${r.status} ${type}: ${String(json!.message).slice(0, 160)}` });
        // Retrying cannot change these answers.
        if (type !== "processing_error" && r.status < 500) break;
        const retryAfter = Number(r.headers.get("retry-after"));
        if (retryAfter > 0) pause = Math.min(2000, retryAfter * 1000);
      }
    } catch (err) {
      if ((err as Error).name !== "TimeoutError") out.dropped++;
      else if (opts.attemptMs < left) out.unanswered++;
      // No answer: unknown whether the scan ran; only a report or a documented error may end the request.
      out.end = "lost";
      out.last = `no answer: ${(err as Error).cause instanceof Error ? ((err as Error).cause as Error).message : (err as Error).message}`;
    }
    if (Date.now() + pause >= end) break;
    await new Promise((r) => setTimeout(r, pause));
  }
  out.ms = Date.now() - started;
  return out;
}
