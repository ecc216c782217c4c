import { open } from "node:fs/promises";

/**
 * Where the `moov` box (the index a player needs before it can start) sits relative to `mdat` (the media data), read
 * from the file's own top-level box headers rather than inferred from ffprobe: "beginning" when moov precedes mdat
 * (progressive playback can start at once, "web optimized" / faststart), "end" when it follows, "" when the file is not
 * an ISO-BMFF/QuickTime file or either box is missing. Fragmented MP4 (moov then moof/mdat pairs) reads "beginning".
 */
export async function moovAtomPosition(path: string): Promise<"beginning" | "end" | ""> {
  const order = await topLevelBoxes(path);
  const moov = order.indexOf("moov");
  const mdat = order.indexOf("mdat");
  if (moov < 0 || mdat < 0) return "";
  return moov < mdat ? "beginning" : "end";
}

/** Types of the top-level boxes in file order (at most `limit`, to bound work on hostile files). */
export async function topLevelBoxes(path: string, limit = 1000): Promise<string[]> {
  const fh = await open(path, "r");
  try {
    const { size: fileSize } = await fh.stat();
    const header = Buffer.alloc(16);
    const types: string[] = [];
    let offset = 0;
    while (offset + 8 <= fileSize && types.length < limit) {
      const { bytesRead } = await fh.read(header, 0, 16, offset);
      if (bytesRead < 8) break;
      let size = header.readUInt32BE(0);
      const type = header.toString("latin1", 4, 8);
      if (!/^[\x20-\x7e]{4}$/.test(type)) break; // not a box header: stop rather than guess
      if (size === 1) {
        if (bytesRead < 16) break;
        const large = header.readBigUInt64BE(8);
        if (large > BigInt(Number.MAX_SAFE_INTEGER)) break;
        size = Number(large);
        if (size < 16) break;
      } else if (size === 0) {
        size = fileSize - offset; // box extends to the end of the file
      } else if (size < 8) {
        break;
      }
      types.push(type);
      offset += size;
    }
    return types;
  } finally {
    await fh.close();
  }
}
