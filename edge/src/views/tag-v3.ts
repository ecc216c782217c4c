import { cpuSchema, cpuView } from "./cpu.ts";
import { heavyAdSchema, heavyAdView } from "./heavy-ad.ts";
import type { TagReport } from "@cva/contracts";
import { accessibilitySchema, accessibilityView } from "./accessibility.ts";
import { clickPointSchema, clickPointView, filmStripSchema, filmStripView } from "./film-strip.ts";
import { measurementSchema, measurementView, tagBaseSchema, tagBaseView } from "./tag-common.ts";
import { networkV3Schema, networkV3View, privacySchema, privacyView } from "./privacy.ts";
import { bool, imageSchema, imageView, int, map, obj, str, testResultSchema, testResultView } from "./shared.ts";

export const landingPageSchema = obj(
  { screenshot: imageSchema, tab: str("new_tab, same_tab or none"), title: str(), url: str(), working: bool() },
  { description: "the page opened on click-through; screenshot is an empty image object when nothing opened" },
);

export const tagScanResultsSchema = obj({
  failed: int(),
  passed: int(),
  report_url: str("shareable report page"),
  tests: map(testResultSchema(true), "test results keyed by test id"),
});

export const tagV3Schema = obj(
  {
    ...tagBaseSchema(),
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
  },
  { description: "Ad tag report, v3" },
);

export function tagScanResultsView(r: TagReport["scanResults"]) {
  const tests: Record<string, ReturnType<typeof testResultView>> = {};
  for (const t of r?.tests ?? []) tests[t.test] = testResultView(t, true);
  return { failed: r?.failed ?? 0, passed: r?.passed ?? 0, report_url: r?.reportUrl ?? "", tests };
}

export function tagV3View(r: TagReport) {
  const lp = r.landingPage;
  // Always present, like every documented key: typed clients break on a missing one.
  const shot = imageView(lp?.screenshot);
  return {
    ...tagBaseView(r, "ad_tag", "v3"),
    accessibility: accessibilityView(r.accessibility),
    animation_duration: Number(r.animationDurationMs),
    film_strip: filmStripView(r.filmStrip),
    click_point: clickPointView(r.clickPoint),
    landing_page: {
      screenshot: shot,
      tab: lp?.tab || "none",
      title: lp?.title ?? "",
      url: lp?.url ?? "",
      working: lp?.working ?? false,
    },
    cpu: cpuView(r.cpu),
    heavy_ad: heavyAdView(r.heavyAd),
    measurement: measurementView(r?.measurement),
    name: r.name,
    network: networkV3View(r.network),
    privacy: privacyView(r.privacy),
    scan_results: tagScanResultsView(r.scanResults),
    time_to_visual_start: Number(r.timeToVisualStartMs),
  };
}
