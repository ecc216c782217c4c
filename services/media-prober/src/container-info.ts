import type { ProbeFormat } from "./ffprobe.ts";

export interface ContainerFacts {
  /** Short name of what the file really is: mp4, mov, m4a, 3gp, webm, mkv, ogg, mp3, aac, wav, flac, ts, flv, avi, asf, mpeg. */
  format: string;
  /** ffprobe's format_name (e.g. "mov,mp4,m4a,3gp,3g2,mj2"), kept for logs and debugging. */
  formatName: string;
  mimeType: string;
}

/**
 * ffprobe names demuxers, not formats ("mov,mp4,m4a,3gp,3g2,mj2", "matroska,webm"); the short name comes from the
 * file's own brand: the ISO-BMFF major brand, the EBML DocType. The MIME type follows from that and from whether there
 * is a video stream (audio/mp4 vs video/mp4), never from the server's Content-Type or the VAST declaration.
 */
export function containerFacts(format: ProbeFormat, head: Uint8Array, hasVideo: boolean): ContainerFacts {
  const formatName = format.format_name ?? "";
  const demuxer = formatName.split(",")[0] ?? "";
  const av = (video: string, audio: string) => (hasVideo ? video : audio);
  let short = demuxer;
  let mime = "application/octet-stream";
  switch (demuxer) {
    case "mov": {
      const brand = (format.tags?.major_brand ?? "").trim().toLowerCase();
      if (brand === "qt") [short, mime] = ["mov", "video/quicktime"];
      else if (brand.startsWith("3g2")) [short, mime] = ["3g2", av("video/3gpp2", "audio/3gpp2")];
      else if (brand.startsWith("3gp")) [short, mime] = ["3gp", av("video/3gpp", "audio/3gpp")];
      else if (brand === "m4a" || (!hasVideo && brand === "m4b")) [short, mime] = ["m4a", "audio/mp4"];
      else if (brand === "m4v") [short, mime] = ["m4v", "video/x-m4v"];
      else [short, mime] = ["mp4", av("video/mp4", "audio/mp4")];
      break;
    }
    case "matroska":
      if (ebmlDocType(head) === "webm") [short, mime] = ["webm", av("video/webm", "audio/webm")];
      else [short, mime] = ["mkv", av("video/x-matroska", "audio/x-matroska")];
      break;
    case "ogg":
      [short, mime] = ["ogg", av("video/ogg", "audio/ogg")];
      break;
    case "mp3":
      mime = "audio/mpeg";
      break;
    case "aac":
      mime = "audio/aac";
      break;
    case "wav":
      mime = "audio/wav";
      break;
    case "flac":
      mime = "audio/flac";
      break;
    case "mpegts":
      [short, mime] = ["ts", "video/mp2t"];
      break;
    case "flv":
      mime = "video/x-flv";
      break;
    case "avi":
      mime = "video/x-msvideo";
      break;
    case "asf":
      mime = av("video/x-ms-asf", "audio/x-ms-wma");
      break;
    case "mpeg":
      mime = av("video/mpeg", "audio/mpeg");
      break;
  }
  return { format: short, formatName, mimeType: mime };
}

/** The DocType string of an EBML header ("webm" or "matroska"), read from the first bytes of the file. */
export function ebmlDocType(head: Uint8Array): string {
  // DocType element id 0x4282, then a one-byte-length vint (0x80 | n) in every real-world header.
  for (let i = 4; i + 3 < Math.min(head.length, 64); i++) {
    if (head[i] === 0x42 && head[i + 1] === 0x82) {
      const lenByte = head[i + 2]!;
      if ((lenByte & 0x80) === 0) return "";
      const len = lenByte & 0x7f;
      return Buffer.from(head.subarray(i + 3, i + 3 + len)).toString("latin1");
    }
  }
  return "";
}
