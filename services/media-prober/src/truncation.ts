import { open } from "node:fs/promises";

/*
 * A truncated upload (a cut transfer, a half-copied master) is refused rather than measured as if it were the creative:
 * its duration, loudness and end slates would all describe a different file. Three kinds of evidence:
 *  - the demuxer says so (ffprobe at error level): MP4 "partial file" (the index points past the end) or "moov atom
 *    not found" (the index was at the end and is gone), Matroska "File ended prematurely";
 *  - the packets stop well before the duration the stream itself declares (MP3 Xing/VBRI frame counts, FLAC
 *    STREAMINFO, per-track MP4/Matroska durations): more than max(1 s, 10 %) short;
 *  - a WAV whose data chunk declares more bytes than the file holds (ffmpeg reads what is there without a word).
 */

/** The demuxer's own words for a file cut short, as a client-safe cause. */
export function demuxerTruncation(stderr: string): string | undefined {
  if (/moov atom not found/.test(stderr)) return "its MP4 index (moov box) is missing";
  if (/partial file/.test(stderr)) return "its MP4 index refers to data past the end of the file";
  if (/File ended prematurely/.test(stderr)) return "it ends in the middle of a Matroska element";
  return undefined;
}

/** The stream's last packet ends before its own declared duration by more than max(1 s, 10 %). */
export function endsEarly(lastPacketEnd: number, declaredDuration: number): boolean {
  if (!(declaredDuration > 0) || !Number.isFinite(lastPacketEnd)) return false;
  return declaredDuration - lastPacketEnd > Math.max(1, 0.1 * declaredDuration);
}

/**
 * Where a stream's packets end (seconds from its first packet) when that is more than max(1 s, 10 %) short of the
 * duration it declares; undefined when it is not (or nothing is declared). A loop, not Math.max(...times): an hour of
 * AAC is 170 000 packets, past what a spread call takes.
 */
export function packetsEndEarly(times: number[], declaredDuration: number): number | undefined {
  let first = Infinity;
  let last = -Infinity;
  for (const t of times) {
    if (!Number.isFinite(t)) continue;
    if (t < first) first = t;
    if (t > last) last = t;
  }
  if (!Number.isFinite(first)) return undefined;
  return endsEarly(last - first, declaredDuration) ? last - first : undefined;
}

/**
 * For a RIFF/WAVE file: true when its `data` chunk declares more bytes than follow it in the file. Walks the chunk
 * headers (at most 64 of them) from the start; anything unexpected answers false (not evidence).
 */
export async function wavDataShort(path: string): Promise<boolean> {
  const fh = await open(path, "r");
  try {
    const { size } = await fh.stat();
    const head = Buffer.alloc(12);
    if ((await fh.read(head, 0, 12, 0)).bytesRead < 12) return false;
    if (head.toString("latin1", 0, 4) !== "RIFF" || head.toString("latin1", 8, 12) !== "WAVE") return false;
    let at = 12;
    const chunk = Buffer.alloc(8);
    for (let i = 0; i < 64 && at + 8 <= size; i++) {
      if ((await fh.read(chunk, 0, 8, at)).bytesRead < 8) return false;
      const id = chunk.toString("latin1", 0, 4);
      const len = chunk.readUInt32LE(4);
      // 0xFFFFFFFF: a streamed WAV that never knew its length (and RF64 keeps it elsewhere): no claim to check.
      if (id === "data") return len !== 0xffffffff && at + 8 + len > size;
      at += 8 + len + (len % 2);
    }
    return false;
  } finally {
    await fh.close();
  }
}
