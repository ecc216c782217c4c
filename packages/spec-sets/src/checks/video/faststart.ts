import type { VideoFileReport } from "@cva/contracts";
import type { VideoFileTest } from "../../types.ts";

export const faststart: VideoFileTest = {
  meta: {
    id: "faststart",
    name: "Faststart (moov at the beginning)",
    data_type: "bool",
    unit: "",
    description:
      "MP4/MOV: whether the moov atom (the index) comes before the media data, so a player starts while downloading; not applicable to other containers.",
  },
  measure(report: VideoFileReport) {
    const pos = report.fileInfo?.container?.moovAtomPosition ?? "";
    if (pos === "") return null;
    return pos === "beginning" ? 1 : { value: 0, detail: "the moov atom is at the end: the whole file must download before it plays (remux with -movflags +faststart)" };
  },
};
