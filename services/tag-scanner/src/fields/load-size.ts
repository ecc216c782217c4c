import type { RequestRecord } from "../gatherers/network.ts";

export interface LoadSizeValue { initialLoad: number; hostInitiatedSubload: number; total: number }

/**
 * Load phases, IAB New Ad Portfolio (2017): the initial load is everything requested before the top document's
 * window `load` event; the host-initiated subload is what is requested after it. (The product we mirror is said to
 * cut at DOMContentLoaded; we follow the IAB text because the thresholds in the IAB spec set come from it.) A
 * request counts by its start time; bytes are on-the-wire bytes (encodedDataLength). When `load` never fired, every
 * request is initial load. `extraInitial` is the tag's own markup, delivered with the host page.
 */
export function loadSize(requests: RequestRecord[], loadTs: number | undefined, extraInitial = 0): LoadSizeValue {
  let initial = extraInitial;
  let sub = 0;
  for (const r of requests) {
    const bytes = r.encodedBytes;
    if (loadTs !== undefined && r.startTs > loadTs) sub += bytes;
    else initial += bytes;
  }
  return { initialLoad: initial, hostInitiatedSubload: sub, total: initial + sub };
}
