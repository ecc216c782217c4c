import type { CDPSession } from "puppeteer-core";
import { bounded, truncate } from "../util.ts";
import { pageFunction } from "./page-script.ts";
import type { ProbeWorlds } from "./probe-world.ts";

export interface StorageArtifact {
  cookies: Array<{
    domain: string; expires: number; httpOnly: boolean; name: string; path: string; priority: string; sameSite?: string;
    secure: boolean; session: boolean; size: number; value: string;
  }>;
  localStorage: Array<{ key: string; value: string }>;
}

// Budgets: with the console's, dialogs' and network records' (page-events.ts, network.ts) they bound a tag report at
// about 13 MB whatever the creative does — well under NATS' 64 MB message limit.
const MAX_COOKIES = 300;
/** Across every frame (each frame's origin may add its own 200). */
const MAX_LOCAL_STORAGE = 500;
/** A frame's own entries, at most 200 (page/local-storage.js). */
const LOCAL_STORAGE = pageFunction<[max: number]>(new URL("./page/local-storage.js", import.meta.url), "localStorageEntries")(200);

/**
 * What the creative stored: every cookie of the scan's context (set by JavaScript or by Set-Cookie, first or third
 * party: the profile allows third-party cookies as a default desktop Chrome does; a cookie the browser refused is not
 * there), and localStorage of every frame, hence of every origin the creative used (read from isolated worlds).
 */
export async function readStorage(client: CDPSession, worlds: ProbeWorlds, ms: number): Promise<StorageArtifact> {
  const deadline = Date.now() + ms;
  const all = await bounded(client.send("Network.getAllCookies"), ms, undefined);
  const cookies = (all?.cookies ?? []).slice(0, MAX_COOKIES).map((c) => ({
    domain: c.domain, expires: c.expires, httpOnly: c.httpOnly, name: truncate(c.name, 1000), path: c.path,
    priority: c.priority, sameSite: c.sameSite, secure: c.secure, session: c.session, size: c.size, value: truncate(c.value, 4096),
  }));
  const seen = new Map<string, { key: string; value: string }>();
  for (const frame of await worlds.frames()) {
    const left = deadline - Date.now();
    if (left <= 0) break;
    const entries = await worlds.evaluate<Array<[string, string]>>(frame.id, LOCAL_STORAGE, Math.min(left, 2_000));
    let origin = "";
    try {
      origin = new URL(frame.url).origin;
    } catch { /* about:blank shares its parent's storage */ }
    for (const [key, value] of entries ?? []) if (seen.size < MAX_LOCAL_STORAGE) seen.set(`${origin}\u0000${key}`, { key: truncate(String(key), 1000), value: truncate(String(value), 4096) });
  }
  return { cookies, localStorage: [...seen.values()] };
}
