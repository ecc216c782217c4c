import { OutboundError, safeFetch, type OutboundPolicy, type SafeResponse } from "@cva/platform";
import type { VastLimits } from "./limits.ts";

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
}

export type FetchOutcome = { ok: true; res: SafeResponse } | { ok: false; error: OutboundError | Error };

/** GETs one VAST document the way a player's XHR would (Origin, Accept, Accept-Language), bounded per CONTRACT §6. */
export async function fetchVastDocument(url: string, ctx: FetchContext): Promise<FetchOutcome> {
  try {
    const res = await safeFetch(ctx.rewriteUrl(url), {
      policy: ctx.policy,
      method: "GET",
      headers: {
        origin: PLAYER_ORIGIN,
        accept: "application/xml, text/xml, */*;q=0.8",
        "accept-language": ctx.language,
        "user-agent": VAST_USER_AGENT,
      },
      maxBytes: ctx.limits.maxXmlBytes,
      connectTimeoutMs: ctx.limits.connectTimeoutMs,
      timeoutMs: ctx.limits.fetchTimeoutMs,
      maxRedirects: ctx.limits.maxHttpRedirects,
      signal: ctx.signal,
    });
    return { ok: true, res };
  } catch (e) {
    if (ctx.signal?.aborted) throw ctx.signal.reason ?? e;
    return { ok: false, error: e instanceof Error ? e : new Error(String(e)) };
  }
}
