import { ZipError, quoteName } from "../errors.ts";

/**
 * The entry name with Windows separators made zip separators. APPNOTE 4.4.17 allows only "/", but Windows PowerShell's
 * Compress-Archive (.NET Framework before 4.6.1) writes "css\style.css", and every Windows tool, browser-based
 * uploader and `unzip` (with a warning) reads a backslash as a separator — as ad servers do. A name is normalised
 * *before* it is validated, so "..\x" is refused as the traversal it is, and "a\b" next to "a/b" as a duplicate.
 */
export function normaliseSeparators(name: string): string {
  return name.replaceAll("\\", "/");
}

/**
 * Rejects every entry name that could land outside the extraction root or mean different things to different
 * tools. Nothing is written to disk here, but the bundle is served by path and other consumers may extract it, so
 * names must be canonical relative POSIX paths. Order matters: the most specific reason wins.
 */
export function validateEntryName(name: string, rawBytes: Uint8Array, maxNameBytes: number): void {
  const q = quoteName(name);
  if (rawBytes.includes(0) || name.includes("\u0000")) {
    throw new ZipError(`zip entry ${q} has a NUL character in its name`);
  }
  if (rawBytes.length > maxNameBytes) {
    throw new ZipError(`zip entry ${q} has a name longer than ${maxNameBytes} bytes`);
  }
  if (name.length === 0) throw new ZipError("the zip has an entry with an empty name");
  if (/^[A-Za-z]:/.test(name)) {
    throw new ZipError(`zip entry ${q} starts with a drive letter (absolute path)`);
  }
  if (name.startsWith("/")) {
    throw new ZipError(`zip entry ${q} is an absolute path`);
  }
  // eslint-disable-next-line no-control-regex
  if (/[\u0001-\u001f\u007f]/.test(name)) {
    throw new ZipError(`zip entry ${q} has a control character in its name`);
  }
  const segments = (name.endsWith("/") ? name.slice(0, -1) : name).split("/");
  if (segments.includes("..")) {
    throw new ZipError(`zip entry ${q} escapes the archive root (path traversal)`);
  }
  if (segments.some((s) => s === "" || s === ".")) {
    throw new ZipError(`zip entry ${q} has an empty or "." path segment`);
  }
}

/** Key under which two names collide on a case-insensitive or normalising file system (macOS, Windows). */
export function collisionKey(name: string): string {
  return name.replace(/\/$/, "").normalize("NFC").toLowerCase();
}
