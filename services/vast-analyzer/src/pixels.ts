import { safeFetch } from "@cva/platform";
import { mapBounded } from "./concurrency.ts";
import { describeFetchError } from "./errors.ts";
import { PLAYER_ORIGIN, VAST_USER_AGENT, type FetchContext } from "./fetch-document.ts";
import { expandMacros } from "./macros.ts";

export interface PixelResult {
  /** The impression URL as listed in the report: absolute, macros left as written in the VAST. */
  url: string;
  ok: boolean;
  status: number;
  error?: string;
  /** False when it was not requested at all (no time left): impression_pixels lists only what was fired. */
  fired?: boolean;
}

/**
 * Fires impression pixels like a player: GET, cookies none, bounded concurrency, every request under the outbound
 * policy. Each URL of the list is fired once per occurrence (a player fires every <Impression> of the chain).
 */
export async function fireImpressions(urls: URL[], ctx: FetchContext): Promise<PixelResult[]> {
  return mapBounded(urls, ctx.limits.pixelConcurrency, async (u) => {
    const listed = u.href;
    // The pixels answer to the scan's deadline too: a slow tracker must not hold the report past it.
    const time = ctx.budget.time(ctx.limits.pixelTimeoutMs);
    if (time.ms <= 0) return { url: listed, ok: false, status: 0, fired: false, error: "not fired: the scan's deadline was reached" };
    try {
      const res = await safeFetch(ctx.rewriteUrl(expandMacros(u)), {
        policy: ctx.policy,
        method: "GET",
        headers: { origin: PLAYER_ORIGIN, "user-agent": VAST_USER_AGENT, "accept-language": ctx.language, accept: "image/*,*/*;q=0.8" },
        maxBytes: ctx.limits.pixelMaxBytes,
        connectTimeoutMs: ctx.limits.connectTimeoutMs,
        timeoutMs: time.ms,
        maxRedirects: ctx.limits.maxHttpRedirects,
        signal: ctx.signal,
      });
      const ok = res.status >= 200 && res.status < 400;
      return { url: listed, ok, status: res.status, ...(ok ? {} : { error: `answered HTTP ${res.status}` }) };
    } catch (e) {
      if (ctx.signal?.aborted) throw ctx.signal.reason ?? e;
      return { url: listed, ok: false, status: 0, error: describeFetchError(e) };
    }
  });
}
