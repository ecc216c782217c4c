import { readFile } from "node:fs/promises";

/**
 * What a pass wrote, read back only when it is whole: a pass killed on its time-out can leave a half-written image,
 * which must not be stored as if it had been measured.
 */
export async function readComplete(path: string, complete: (b: Buffer) => boolean): Promise<Buffer | undefined> {
  const b = await readFile(path).catch(() => undefined);
  return b && b.length > 0 && complete(b) ? b : undefined;
}

/** SOI at the start and EOI at the end: ffmpeg killed while writing leaves a file without its EOI. */
export function isCompleteJpeg(b: Buffer): boolean {
  return b.length > 4 && b[0] === 0xff && b[1] === 0xd8 && b[b.length - 2] === 0xff && b[b.length - 1] === 0xd9;
}

/** PNG signature and the IEND chunk as the last 12 bytes. */
export function isCompletePng(b: Buffer): boolean {
  return b.length > 20 && b.readUInt32BE(0) === 0x89504e47 && b.subarray(b.length - 8, b.length - 4).toString("latin1") === "IEND";
}

/** A raw raster of exactly the expected size (ffmpeg writes it in one go at the end of its frame). */
export const isRaster = (bytes: number) => (b: Buffer) => b.length === bytes;
