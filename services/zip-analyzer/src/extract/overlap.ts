import { ZipError, quoteName } from "../errors.ts";

/** Bytes of the archive an entry occupies: its local header and its (compressed) data. */
export interface EntrySpan {
  name: string;
  start: number;
  end: number;
}

/**
 * The "better zip bomb" (Fifield 2019) points many central directory entries at one shared, highly compressed
 * kernel, or overlaps their local headers with each other's data. Legitimate archives never do either: every entry
 * owns a disjoint span that ends before the central directory. yauzl does not check this, so we do.
 */
export function checkNoOverlap(spans: EntrySpan[], centralDirectoryOffset: number | undefined, archiveSize: number): void {
  const sorted = [...spans].sort((a, b) => a.start - b.start || a.end - b.end);
  for (let i = 0; i < sorted.length; i++) {
    const cur = sorted[i];
    if (cur.end > archiveSize) {
      throw new ZipError(`zip entry ${quoteName(cur.name)} extends past the end of the archive (truncated or corrupt zip)`);
    }
    if (centralDirectoryOffset !== undefined && cur.end > centralDirectoryOffset) {
      throw new ZipError(`zip entry ${quoteName(cur.name)} overlaps the central directory (overlapping entries are not allowed)`);
    }
    const prev = sorted[i - 1];
    if (prev && cur.start < prev.end) {
      const how = cur.start === prev.start ? "share the same data" : "overlap";
      throw new ZipError(
        `zip entries ${quoteName(prev.name)} and ${quoteName(cur.name)} ${how} in the archive ` +
          "(overlapping entries are a zip bomb technique and are not allowed)",
      );
    }
  }
}
