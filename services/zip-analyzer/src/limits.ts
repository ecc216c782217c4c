/** What extraction accepts. Defaults are CONTRACT §6; every one can be overridden (env or the factory's `limits`). */
export interface ZipLimits {
  /** Size of the zip itself. */
  maxCompressedBytes: number;
  /** Sum of the uncompressed sizes of all entries (declared, and counted again while inflating). */
  maxUncompressedBytes: number;
  /** Uncompressed size of one entry. */
  maxEntryBytes: number;
  /** Entries in the central directory, directories included. */
  maxEntries: number;
  /** Highest uncompressed:compressed ratio allowed for entries of at least `ratioMinBytes` uncompressed. */
  maxCompressionRatio: number;
  /** Small entries are exempt from the ratio rule: a 10 KB run of spaces compressing 500:1 is harmless. */
  ratioMinBytes: number;
  /** Longest entry name, in bytes. */
  maxNameBytes: number;
  /**
   * Archives inside the zip (.zip, .jar, .7z, … or archive magic bytes) are never extracted. "reject" (default)
   * refuses the zip — an HTML5 banner has no use for one and it is a classic scanner-evasion trick; "list" keeps it
   * as an opaque file of type "archive" in file_structure.
   */
  nestedArchives: "reject" | "list";
}

export const DEFAULT_ZIP_LIMITS: Readonly<ZipLimits> = Object.freeze({
  maxCompressedBytes: 10 * 1024 * 1024,
  maxUncompressedBytes: 50 * 1024 * 1024,
  maxEntryBytes: 50 * 1024 * 1024,
  maxEntries: 1000,
  maxCompressionRatio: 200,
  ratioMinBytes: 1024 * 1024,
  maxNameBytes: 1024,
  nestedArchives: "reject",
});

export function resolveLimits(overrides?: Partial<ZipLimits>): ZipLimits {
  return { ...DEFAULT_ZIP_LIMITS, ...stripUndefined(overrides ?? {}) };
}

/** ZIP_MAX_COMPRESSED_BYTES, ZIP_MAX_UNCOMPRESSED_BYTES, ZIP_MAX_ENTRY_BYTES, ZIP_MAX_ENTRIES, ZIP_MAX_RATIO, ZIP_NESTED_ARCHIVES. */
export function limitsFromEnv(env: NodeJS.ProcessEnv = process.env): ZipLimits {
  const num = (key: string): number | undefined => {
    const raw = env[key];
    if (raw === undefined || raw.trim() === "") return undefined;
    const n = Number(raw);
    if (!Number.isFinite(n) || n <= 0) throw new Error(`${key} must be a positive number, got ${JSON.stringify(raw)}`);
    return n;
  };
  const nested = env.ZIP_NESTED_ARCHIVES;
  if (nested !== undefined && nested !== "reject" && nested !== "list") {
    throw new Error(`ZIP_NESTED_ARCHIVES must be "reject" or "list", got ${JSON.stringify(nested)}`);
  }
  const total = num("ZIP_MAX_UNCOMPRESSED_BYTES");
  return resolveLimits({
    maxCompressedBytes: num("ZIP_MAX_COMPRESSED_BYTES"),
    maxUncompressedBytes: total,
    maxEntryBytes: num("ZIP_MAX_ENTRY_BYTES") ?? total,
    maxEntries: num("ZIP_MAX_ENTRIES"),
    maxCompressionRatio: num("ZIP_MAX_RATIO"),
    nestedArchives: nested,
  });
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
