import { extensionOf } from "../extract/entry-kind.ts";

/** The file_structure type vocabulary (ZipFile.type). "archive" only appears with nestedArchives = "list". */
export type FileType = "html" | "image" | "script" | "style" | "font" | "video" | "audio" | "data" | "archive" | "other";

const BY_EXTENSION: Record<string, FileType> = {};
const add = (type: FileType, exts: string): void => {
  for (const e of exts.split(" ")) BY_EXTENSION[e] = type;
};
add("html", "html htm xhtml shtml");
add("image", "png jpg jpeg jpe jfif gif webp svg svgz avif apng bmp ico cur tif tiff heic heif jxl");
add("script", "js mjs cjs");
add("style", "css");
add("font", "woff woff2 ttf otf eot");
add("video", "mp4 m4v webm ogv mov avi mkv mpg mpeg 3gp flv");
add("audio", "mp3 wav ogg oga m4a aac flac opus weba");
add("data", "json xml txt csv tsv map yml yaml md vtt srt ini plist atlas fnt");

/**
 * Type by extension; files without a known extension are sniffed by their first bytes. Extension wins when both are
 * available: it is what the browser and ad servers go by (Content-Type is derived from it).
 */
export function classifyFile(name: string, data: Uint8Array, archive: boolean): FileType {
  if (archive) return "archive";
  return BY_EXTENSION[extensionOf(name)] ?? sniff(data);
}

function sniff(data: Uint8Array): FileType {
  const b = data;
  const at = (offset: number, ...sig: number[]): boolean => sig.every((v, i) => b[offset + i] === v);
  const ascii = (offset: number, s: string): boolean => at(offset, ...[...s].map((c) => c.charCodeAt(0)));
  if (at(0, 0x89, 0x50, 0x4e, 0x47) || at(0, 0xff, 0xd8, 0xff) || ascii(0, "GIF8")) return "image";
  if (ascii(0, "RIFF") && ascii(8, "WEBP")) return "image";
  if (ascii(0, "RIFF") && ascii(8, "WAVE")) return "audio";
  if (ascii(0, "wOFF") || ascii(0, "wOF2") || ascii(0, "OTTO") || at(0, 0x00, 0x01, 0x00, 0x00)) return "font";
  if (ascii(4, "ftyp") || at(0, 0x1a, 0x45, 0xdf, 0xa3)) return "video";
  if (ascii(0, "ID3") || ascii(0, "OggS") || at(0, 0xff, 0xfb) || ascii(0, "fLaC")) return "audio";
  const head = Buffer.from(b.subarray(0, 512)).toString("utf8").replace(/^\uFEFF/, "").trimStart().toLowerCase();
  if (head.startsWith("<!doctype html") || head.startsWith("<html")) return "html";
  if (head.startsWith("<svg") || (head.startsWith("<?xml") && head.includes("<svg"))) return "image";
  if (head.startsWith("<?xml")) return "data";
  return "other";
}
