import type { ZipReport } from "@cva/contracts";
import type { ZipTest } from "../../types.ts";

/**
 * Hosts an HTML5 zip may load from: Google web fonts (Google Ads HTML5: "only Google web fonts are supported") and the
 * ad libraries Google's ad servers host themselves (Enabler, GWD runtime, CreateJS/GSAP mirrors at s0.2mdn.net,
 * tpc.googlesyndication.com). Everything else is a dependency the ad server does not control.
 */
export const ALLOWED_CDN_HOSTS = ["fonts.googleapis.com", "fonts.gstatic.com", "s0.2mdn.net", "tpc.googlesyndication.com"];

function host(url: string): string {
  try {
    return new URL(url.startsWith("//") ? `https:${url}` : url).hostname.toLowerCase();
  } catch {
    return "";
  }
}

export const external_assets: ZipTest = {
  meta: {
    id: "external_assets",
    name: "External Assets",
    data_type: "int",
    unit: "count",
    description: `Assets loaded from outside the zip, except from the allowed CDNs (${ALLOWED_CDN_HOSTS.join(", ")}); the message lists them.`,
  },
  measure(report: ZipReport) {
    const outside = report.externalAssets.filter((u) => !ALLOWED_CDN_HOSTS.includes(host(u)));
    if (outside.length === 0) return { value: 0, detail: report.externalAssets.length ? "only allowed CDNs" : "everything is in the zip" };
    const shown = outside.slice(0, 5).join(", ");
    return { value: outside.length, detail: `loaded from outside the zip: ${shown}${outside.length > 5 ? `, and ${outside.length - 5} more` : ""}` };
  },
};
