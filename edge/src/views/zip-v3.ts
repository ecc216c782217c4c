import { cpuSchema, cpuView } from "./cpu.ts";
import { heavyAdSchema, heavyAdView } from "./heavy-ad.ts";
import type { ZipReport } from "@cva/contracts";
import { landingPageSchema, tagScanResultsSchema, tagScanResultsView } from "./tag-v3.ts";
import { imageView } from "./shared.ts";
import { measurementSchema, measurementView } from "./tag-common.ts";
import { accessibilitySchema, accessibilityView } from "./accessibility.ts";
import { clickPointSchema, clickPointView, filmStripSchema, filmStripView } from "./film-strip.ts";
import { arr, bool, int, obj, str } from "./shared.ts";
import { zipV2Schema, zipV2View } from "./zip-v2.ts";
import { networkV3Schema, networkV3View, privacySchema, privacyView } from "./privacy.ts";

const v2 = zipV2Schema as { properties: Record<string, Record<string, unknown>>; required: string[] };

const imageCheckSchema = obj(
  {
    name: str("path in the zip"),
    bytes: int(),
    reencoded_bytes: int("bytes re-encoded at the same quality (PNG lossless at the highest compression, JPEG at its own quality); absent when not checked"),
    width: int(),
    height: int(),
    error: str("why the image was not checked; empty when it was"),
  },
  { optional: ["reencoded_bytes"] },
);

// The v2 zip fields plus the v3 additions of the ad tag report (name, scan_results, landing_page,
// animation_duration, time_to_visual_start, film_strip, click_point) and the zip's own v3 fields. The render is the
// zip's entry framed at its ad.size in a slot page (services/zip-analyzer), so the screenshot, film strip and click
// point mean what they mean for a tag: the slot's box is the creative's box.
export const zipV3Schema = obj(
  {
    ...v2.properties,
    accessibility: accessibilitySchema,
    animation_duration: int("milliseconds from first paint until all pixels stop moving; -1 if still animating at the time-out"),
    film_strip: filmStripSchema,
    click_point: clickPointSchema,
    landing_page: landingPageSchema,
    measurement: measurementSchema,
    cpu: cpuSchema,
    heavy_ad: heavyAdSchema,
    name: str("copied from the request"),
    network: networkV3Schema,
    privacy: privacySchema,
    scan_results: tagScanResultsSchema,
    time_to_visual_start: int("milliseconds until something was painted; -1 if nothing was displayed"),
    has_backup_ad: bool("the zip holds a backup image: a static image of the ad's size (the fallback where HTML5 cannot run)"),
    backup_ad: str("path of the backup image in the zip; empty when there is none"),
    click_tag_used: bool("the click tag is used, not only declared: the creative's code reads it, or the click opened its page"),
    external_assets: arr(str(), "URLs the creative loads from outside the zip"),
    zip_size: int("bytes, as uploaded"),
    unzipped_size: int("bytes, all files uncompressed"),
    images: arr(imageCheckSchema, "every PNG and JPEG of the zip, re-encoded at the same quality (image_optimization)"),
  },
  { description: "Zip report, v3", optional: ["minified"] },
);

export function zipV3View(r: ZipReport) {
  const render = r.render;
  const lp = render?.landingPage;
  return {
    ...zipV2View(r, "v3"),
    accessibility: accessibilityView(render?.accessibility),
    animation_duration: Number(render?.animationDurationMs ?? 0),
    film_strip: filmStripView(render?.filmStrip ?? []),
    click_point: clickPointView(render?.clickPoint),
    landing_page: {
      screenshot: imageView(lp?.screenshot),
      tab: lp?.tab || "none",
      title: lp?.title ?? "",
      url: lp?.url ?? "",
      working: lp?.working ?? false,
    },
    cpu: cpuView(render?.cpu),
    heavy_ad: heavyAdView(render?.heavyAd),
    measurement: measurementView(render?.measurement),
    name: render?.name ?? "",
    network: networkV3View(render?.network),
    privacy: privacyView(render?.privacy),
    scan_results: tagScanResultsView(r.scanResults),
    time_to_visual_start: Number(render?.timeToVisualStartMs ?? 0),
    has_backup_ad: r.hasBackupAd,
    backup_ad: r.backupAd,
    click_tag_used: r.clickTagUsed,
    external_assets: [...r.externalAssets],
    zip_size: Number(r.zipSize),
    unzipped_size: Number(r.unzippedSize),
    images: r.images.map((i) => ({
      name: i.name,
      bytes: Number(i.bytes),
      ...(i.error === "" ? { reencoded_bytes: Number(i.reencodedBytes) } : {}),
      width: i.width,
      height: i.height,
      error: i.error,
    })),
  };
}
