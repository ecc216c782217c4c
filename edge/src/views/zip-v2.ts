import type { ZipReport } from "@cva/contracts";
import { tagBaseSchema, tagBaseView } from "./tag-common.ts";
import { arr, bool, int, obj, str } from "./shared.ts";

export const zipV2Schema = obj(
  {
    ...tagBaseSchema(),
    visual_artifacts: bool(),
    click_tag_found: bool("a click tag was found in index.html"),
    file_structure: arr(obj({ bytes: int(), name: str(), type: str("html, image, script, style, font, video, audio, data, other") })),
    has_external_assets: bool(),
    html5_library: str(),
    meta_ad_size: bool("index file has an ad.size meta tag with width and height"),
    minified: bool("false if at least one CSS or JavaScript file could be reduced by more than 5%; absent when not measured (then listed in not_measured)"),
    not_measured: arr(str(), "zip fields that were not measured and are therefore absent, e.g. minified"),
    errors: arr(str(), "why each field in not_measured was not measured"),
  },
  { description: "Zip report, v2", optional: ["minified"] },
);

export function zipV2View(r: ZipReport, apiVersion: "v2" | "v3" = "v2") {
  return {
    ...tagBaseView(r.render, "zip", apiVersion),
    visual_artifacts: r.render?.visualArtifacts ?? false,
    click_tag_found: r.clickTagFound,
    file_structure: r.fileStructure.map((f) => ({ bytes: Number(f.bytes), name: f.name, type: f.type })),
    has_external_assets: r.hasExternalAssets,
    html5_library: r.html5Library,
    meta_ad_size: r.metaAdSize,
    ...(r.notMeasured.includes("minified") ? {} : { minified: r.minified }),
    not_measured: [...r.notMeasured],
    errors: [...r.errors],
  };
}
