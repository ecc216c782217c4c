/** What an archive path looks like by name alone (before any byte is inflated). */

const ARCHIVE_EXTENSIONS = new Set([
  "zip", "jar", "war", "ear", "apk", "aar", "ipa", "xpi", "crx", "7z", "rar", "tar", "gz", "tgz", "bz2", "tbz2", "xz",
  "txz", "zst", "lz", "lzma", "cab", "iso", "dmg", "arj", "lzh",
]);

export function extensionOf(name: string): string {
  const base = name.slice(name.lastIndexOf("/") + 1);
  const dot = base.lastIndexOf(".");
  return dot <= 0 ? "" : base.slice(dot + 1).toLowerCase();
}

export function isArchiveName(name: string): boolean {
  return ARCHIVE_EXTENSIONS.has(extensionOf(name));
}

/**
 * Archive magic bytes, for archives renamed to something innocent. Formats that merely *use* a container
 * (.svgz is gzip, .woff is zlib-compressed, .docx is zip) are excluded by extension where they are legitimate
 * in a banner: only svgz qualifies.
 */
export function hasArchiveMagic(name: string, data: Uint8Array): boolean {
  const b = data;
  const starts = (...sig: number[]): boolean => sig.every((v, i) => b[i] === v);
  if (starts(0x50, 0x4b, 0x03, 0x04) || starts(0x50, 0x4b, 0x05, 0x06) || starts(0x50, 0x4b, 0x07, 0x08)) return true;
  if (starts(0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c)) return true; // 7z
  if (starts(0x52, 0x61, 0x72, 0x21, 0x1a, 0x07)) return true; // Rar!
  if (starts(0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00)) return true; // xz
  if (starts(0x28, 0xb5, 0x2f, 0xfd)) return true; // zstd
  if (starts(0x42, 0x5a, 0x68) && b[3] !== undefined && b[3] >= 0x31 && b[3] <= 0x39) return true; // bzip2
  if (starts(0x1f, 0x8b) && extensionOf(name) !== "svgz") return true; // gzip
  if (b.length > 262 && Buffer.from(b.subarray(257, 262)).toString("latin1") === "ustar") return true; // tar
  return false;
}

/** OS metadata that zip tools add (Finder's __MACOSX resource forks, .DS_Store, Thumbs.db): not part of the creative. */
export function isOsMetadata(name: string): boolean {
  if (name === "__MACOSX/" || name.startsWith("__MACOSX/")) return true;
  const base = name.slice(name.lastIndexOf("/") + 1);
  return base === ".DS_Store" || base === "Thumbs.db" || base === "desktop.ini";
}
