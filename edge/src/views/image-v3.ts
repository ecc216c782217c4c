import type { ImageFileReport } from "@cva/contracts";
import { fileCommonSchema, fileCommonView } from "./file-common.ts";
import { bool, imageSchema, imageView, int, obj, str } from "./shared.ts";

// POST /v3/scanImage's report (ImageFileReport). INTERIM (s19-edge): see file-common.ts; s19-views owns this file.

export const imageV3Schema = obj(
  {
    ...fileCommonSchema,
    format: str("png, jpeg, gif, webp, avif or svg"),
    mime_type: str(),
    file_size: int("bytes"),
    width: int("pixels"),
    height: int("pixels"),
    animated: bool(),
    frame_count: int(),
    screenshot: imageSchema,
  },
  { description: "Image file report, v3" },
);

export function imageV3View(r: ImageFileReport) {
  return {
    ...fileCommonView(r, "image"),
    format: r.format,
    mime_type: r.mimeType,
    file_size: Number(r.fileSize),
    width: r.width,
    height: r.height,
    animated: r.animated,
    frame_count: r.frameCount,
    screenshot: imageView(r.screenshot),
  };
}
