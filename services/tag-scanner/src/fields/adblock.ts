import { readFileSync } from "node:fs";
import { FiltersEngine, Request } from "@ghostery/adblocker";
import { markupUrls } from "./third-party-ad-server.ts";

/**
 * Ad-block prediction with @ghostery/adblocker (MPL-2.0) and our own filter list, `../adblock/cva-filters.txt`,
 * written for this project (see its header). EasyList is not shipped: it is GPLv3 / CC BY-SA 3.0, whose copyleft
 * terms we do not want to attach to the product; there is no internet at run time either, so the list is a file.
 */
let engine: FiltersEngine | undefined;

export function adblockEngine(): FiltersEngine {
  engine ??= FiltersEngine.parse(readFileSync(new URL("../adblock/cva-filters.txt", import.meta.url), "utf8"), {
    loadCosmeticFilters: false,
    loadNetworkFilters: true,
  });
  return engine;
}

type AdblockType = "script" | "image" | "stylesheet" | "xmlhttprequest" | "sub_frame" | "media" | "font" | "other" | "main_frame" | "websocket" | "ping";

const TYPE_MAP: Record<string, AdblockType> = {
  script: "script", image: "image", stylesheet: "stylesheet", xhr: "xmlhttprequest", fetch: "xmlhttprequest",
  document: "sub_frame", media: "media", font: "font", websocket: "websocket", ping: "ping",
};

/** True when a content blocker with the list would block any request of the creative or a URL in its markup. */
export function blockedByAdblock(requests: Array<{ url: string; resourceType: string }>, markup: string, pageUrl: string): boolean {
  const e = adblockEngine();
  const check = (url: string, type: AdblockType) => {
    if (!/^(https?|wss?):/i.test(url)) return false;
    try {
      return e.match(Request.fromRawDetails({ url, type, sourceUrl: pageUrl })).match;
    } catch {
      return false;
    }
  };
  for (const r of requests) if (check(r.url, TYPE_MAP[r.resourceType] ?? "other")) return true;
  for (const url of markupUrls(markup)) if (check(url, "script")) return true;
  return false;
}
