import type { MediaFileTest, MediaFileInput } from "../../../types.ts";
import { bool, fileInfo } from "../../util.ts";

export const moov_atom: MediaFileTest = {
  meta: {
    id: "moov_atom",
    name: "MOOV Atom",
    data_type: "bool",
    unit: "",
    description: "1 if the MP4/MOV moov atom is at the beginning of the file (playback can start before the download ends), else 0; not applicable to other containers.",
  },
  measure(input: MediaFileInput) {
    const position = fileInfo(input)?.container?.moovAtomPosition ?? "";
    // Empty means the container is not MP4/MOV, so there is no moov atom to place.
    if (position === "") return null;
    return bool(position === "beginning");
  },
};
