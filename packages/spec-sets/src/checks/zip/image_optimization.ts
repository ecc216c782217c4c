import type { ZipReport } from "@cva/contracts";
import type { ZipTest } from "../../types.ts";

/** An image whose re-encoding at the same quality saves more than this share is unoptimised. */
export const IMAGE_SAVING_LIMIT = 0.1;

export const image_optimization: ZipTest = {
  meta: {
    id: "image_optimization",
    name: "Image Optimization",
    data_type: "int",
    unit: "count",
    description:
      "PNG/JPEG images that shrink by more than 10 % when re-encoded at the same quality (PNG losslessly at the highest compression, JPEG at its own quality); the message names them and the saving. Not applicable without PNG/JPEG images.",
  },
  measure(report: ZipReport) {
    if (report.images.length === 0) return null;
    const checked = report.images.filter((i) => i.error === "" && i.reencodedBytes > 0n);
    if (checked.length === 0) throw new Error(report.images[0]!.error || "no image could be checked");
    const bloated = checked
      .map((i) => ({ name: i.name, saving: 1 - Number(i.reencodedBytes) / Number(i.bytes) }))
      .filter((i) => i.saving > IMAGE_SAVING_LIMIT);
    const unchecked = report.images.length - checked.length;
    const note = unchecked ? `; ${unchecked} image(s) not checked` : "";
    if (bloated.length === 0) return { value: 0, detail: `${checked.length} image(s) checked${note}` };
    const list = bloated.slice(0, 5).map((i) => `${i.name} (−${Math.round(i.saving * 100)} %)`).join(", ");
    return { value: bloated.length, detail: `would shrink re-encoded at the same quality: ${list}${bloated.length > 5 ? `, and ${bloated.length - 5} more` : ""}${note}` };
  },
};
