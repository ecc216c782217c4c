import { OutboundError, safeFetch, type OutboundPolicy, type SafeResponse } from "@cva/platform";
import type { VastLimits } from "./limits.ts";
import { chargeForFailure, DEADLINE_REACHED, formatBytes, type ByteGrant, type ScanBudget } from "./scan-budget.ts";

/** The origin the "player" sends; the `cors` field checks the answer against it. */
export const PLAYER_ORIGIN = "https://player.cva.invalid";

/** A desktop Chrome user agent, as a web video player would send; reported as meta.ua. */
export const VAST_USER_AGENT =
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";

export interface FetchContext {
  policy: OutboundPolicy;
  limits: VastLimits;
  language: string;
  signal?: AbortSignal;
  /** Test seam: maps a URL to the one actually requested (e.g. public hosts onto a local fixture server). */
  rewriteUrl: (url: string) => string;
  /** The scan's deadline and byte budget (scan-budget.ts). */
  budget: ScanBudget;
}

/**
 * One GET as the player makes it — its origin, user agent and language, within the scan's outbound policy, byte grant
 * and time — settling the grant with what arrived. The VAST document, overlays and verification scripts all go this
 * way, so the three cannot drift apart in what they send or how they are bounded.
 */
export async function playerGet(url: string, ctx: FetchContext, grant: ByteGrant, timeMs: number, headers: Record<string, string> = {}): Promise<SafeResponse> {
  const res = await safeFetch(url, {
    policy: ctx.policy,
    method: "GET",
    headers: { origin: PLAYER_ORIGIN, "user-agent": VAST_USER_AGENT, "accept-language": ctx.language, ...headers },
    maxBytes: grant.bytes,
    connectTimeoutMs: Math.min(ctx.limits.connectTimeoutMs, timeMs),
    timeoutMs: timeMs,
    maxRedirects: ctx.limits.maxHttpRedirects,
    signal: ctx.signal,
  });
  grant.settle(res.body.length);
  return res;
}

/**
 * `budget` says the scan's budget, not the document, ended the fetch: its deadline came first (or had passed), or its
 * bytes ran out; `message` then says which, for the chain's error.
 */
export type FetchOutcome =
  | { ok: true; res: SafeResponse }
  | { ok: false; error: OutboundError | Error; budget?: { kind: "deadline" | "bytes"; message: string } };

/**
 * Wrapper hops keep back this much of the scan's time for the impressions, which go out after the chains are resolved,
 * bounded by their own time-out (the scanned document itself is fetched whatever is left: without it there is nothing
 * to report).
 */
export const keepForPixels = (limits: VastLimits) => limits.pixelTimeoutMs;

/** GETs one VAST document the way a player's XHR would (Origin, Accept, Accept-Language), bounded per CONTRACT §6. */
export async function fetchVastDocument(url: string, ctx: FetchContext, opts: { keepMs?: number } = {}): Promise<FetchOutcome> {
  const time = ctx.budget.time(ctx.limits.fetchTimeoutMs, opts.keepMs ?? 0);
  if (time.ms <= 0) return { ok: false, error: new Error(DEADLINE_REACHED), budget: { kind: "deadline", message: `not fetched: ${DEADLINE_REACHED}` } };
  const grant = await ctx.budget.reserve(ctx.limits.maxXmlBytes);
  if (grant.bytes === 0) {
    grant.settle(0);
    const message = `not fetched: the scan's byte budget of ${formatBytes(ctx.budget.totalBytes)} was reached`;
    return { ok: false, error: new Error(message), budget: { kind: "bytes", message } };
  }
  const byBudget = grant.bytes < ctx.limits.maxXmlBytes;
  try {
    const res = await playerGet(ctx.rewriteUrl(url), ctx, grant, time.ms, { accept: "application/xml, text/xml, */*;q=0.8" });
    return { ok: true, res };
  } catch (e) {
    grant.settle(chargeForFailure(e, grant.bytes));
    if (ctx.signal?.aborted) throw ctx.signal.reason ?? e;
    const error = e instanceof Error ? e : new Error(String(e));
    const code = e instanceof OutboundError ? e.code : undefined;
    const cutConnect = code === "connect_timeout" && time.ms < ctx.limits.connectTimeoutMs;
    if (time.cut && (code === "timeout" || cutConnect)) return { ok: false, error, budget: { kind: "deadline", message: `stopped: ${DEADLINE_REACHED}` } };
    if (byBudget && code === "too_large") {
      return { ok: false, error, budget: { kind: "bytes", message: `stopped at ${formatBytes(grant.bytes)}: the scan's byte budget was reached` } };
    }
    return { ok: false, error };
  }
}
