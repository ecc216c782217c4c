import { crc32 } from "node:zlib";
import { ZipError, quoteName } from "../errors.ts";
import { resolveLimits, type ZipLimits } from "../limits.ts";
import { collisionKey, normaliseSeparators, validateEntryName } from "./entry-name.ts";
import { hasArchiveMagic, isArchiveName, isOsMetadata } from "./entry-kind.ts";
import { checkNoOverlap, type EntrySpan } from "./overlap.ts";
import {
  decodeEntryName, nextEntry, openEntryStream, openZip, readLocalHeader, type LocalFileHeader, type RawEntry,
  type RawZipFile,
} from "./yauzl-api.ts";

/** One regular file of the zip, inflated in memory. */
export interface ExtractedFile {
  /** Path as stored in the zip ("/"-separated, validated, relative). */
  name: string;
  data: Buffer;
  /** A nested archive kept as an opaque file (only with limits.nestedArchives = "list"). */
  archive: boolean;
}

export interface ExtractedZip {
  files: ExtractedFile[];
  /** Entries in the central directory (directories and OS metadata included). */
  entryCount: number;
  /** OS metadata entries (__MACOSX/, .DS_Store, …) that were validated but not extracted. */
  ignored: string[];
}

interface Declared {
  entry: RawEntry;
  name: string;
  isDirectory: boolean;
}

const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;
const FLAG_ENCRYPTED = 0x1;
const FLAG_STRONG_ENCRYPTION = 0x40;
const LOCAL_HEADER_FIXED = 30;

/**
 * Safe in-memory extraction. Everything the central directory declares is checked before a single byte is
 * inflated (sizes, ratio, names, symlinks, encryption, duplicates, overlapping spans); inflation then counts the
 * real bytes against the same limits, so a lying size is caught after at most one inflate chunk.
 */
export async function extractZip(input: Uint8Array, limitOverrides?: Partial<ZipLimits>): Promise<ExtractedZip> {
  const limits = resolveLimits(limitOverrides);
  const buffer = Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  if (buffer.length === 0) throw new ZipError("the zip is empty (0 bytes)");
  if (buffer.length > limits.maxCompressedBytes) {
    throw new ZipError(`the zip is ${buffer.length} bytes; at most ${limits.maxCompressedBytes} bytes are allowed`);
  }
  precheckSignature(buffer);

  let zip: RawZipFile;
  try {
    zip = await openZip(buffer);
  } catch (err) {
    throw corrupt(err);
  }
  const centralDirectoryOffset = typeof zip.readEntryCursor === "number" ? zip.readEntryCursor : undefined;
  if (zip.entryCount > limits.maxEntries) {
    throw new ZipError(`the zip has ${zip.entryCount} entries; at most ${limits.maxEntries} are allowed`);
  }
  if (zip.entryCount === 0) throw new ZipError("the zip has no entries");

  const declared = await readDeclared(zip, limits);
  await checkLocalHeaders(zip, declared, centralDirectoryOffset, buffer.length);

  const files: ExtractedFile[] = [];
  const ignored: string[] = [];
  let total = 0;
  for (const d of declared) {
    if (d.isDirectory) continue;
    if (isOsMetadata(d.name)) {
      ignored.push(d.name);
      continue;
    }
    const data = await inflate(zip, d, limits, limits.maxUncompressedBytes - total);
    total += data.length;
    const archive = isArchiveName(d.name) || hasArchiveMagic(d.name, data);
    if (archive && limits.nestedArchives === "reject") throw nestedArchive(d.name);
    files.push({ name: d.name, data, archive });
  }
  return { files, entryCount: zip.entryCount, ignored };
}

/** Fast, specific answers for the two commonest non-zips before yauzl's generic errors. */
function precheckSignature(buffer: Buffer): void {
  // The end of central directory record sits in the last 22 + 65535 (max comment) bytes.
  const tail = buffer.subarray(Math.max(0, buffer.length - (22 + 0xffff)));
  if (tail.includes(Buffer.from([0x50, 0x4b, 0x05, 0x06]))) return;
  const looksLikeZip = buffer.length >= 4 && buffer.readUInt32LE(0) === 0x04034b50;
  if (looksLikeZip) {
    throw new ZipError("the zip is truncated or corrupt: its end of central directory record is missing");
  }
  throw new ZipError("the data is not a zip archive");
}

async function readDeclared(zip: RawZipFile, limits: ZipLimits): Promise<Declared[]> {
  const declared: Declared[] = [];
  const seen = new Map<string, string>();
  let totalDeclared = 0;
  for (;;) {
    let entry: RawEntry | null;
    try {
      entry = await nextEntry(zip);
    } catch (err) {
      throw corrupt(err);
    }
    if (!entry) break;
    let name: string;
    try {
      name = normaliseSeparators(decodeEntryName(entry));
    } catch {
      throw new ZipError("the zip has an entry whose name cannot be decoded");
    }
    validateEntryName(name, entry.fileNameRaw, limits.maxNameBytes);
    const q = quoteName(name);
    const isDirectory = name.endsWith("/");

    if (entry.generalPurposeBitFlag & (FLAG_ENCRYPTED | FLAG_STRONG_ENCRYPTION)) {
      throw new ZipError(`zip entry ${q} is encrypted; encrypted entries are not allowed`);
    }
    if (((entry.externalFileAttributes >>> 16) & S_IFMT) === S_IFLNK) {
      throw new ZipError(`zip entry ${q} is a symbolic link; symlinks are not allowed`);
    }
    if (entry.compressionMethod !== 0 && entry.compressionMethod !== 8) {
      throw new ZipError(`zip entry ${q} uses compression method ${entry.compressionMethod}; only stored and deflate are supported`);
    }
    if (isDirectory && entry.uncompressedSize !== 0) {
      throw new ZipError(`zip entry ${q} is a directory with data`);
    }
    if (entry.uncompressedSize > limits.maxEntryBytes) {
      throw new ZipError(`zip entry ${q} declares ${entry.uncompressedSize} bytes uncompressed; at most ${limits.maxEntryBytes} are allowed per entry`);
    }
    totalDeclared += entry.uncompressedSize;
    if (totalDeclared > limits.maxUncompressedBytes) {
      throw new ZipError(`the zip declares more than ${limits.maxUncompressedBytes} bytes uncompressed in total (limit exceeded at entry ${q})`);
    }
    checkRatio(name, entry.uncompressedSize, entry.compressedSize, limits, "declares");

    const key = collisionKey(name);
    const previous = seen.get(key);
    if (previous !== undefined) {
      throw new ZipError(previous === name
        ? `zip entry ${q} appears more than once (duplicate names are not allowed)`
        : `zip entries ${quoteName(previous)} and ${q} differ only in letter case (duplicate names are not allowed)`);
    }
    seen.set(key, name);
    if (!isDirectory && isArchiveName(name) && limits.nestedArchives === "reject" && !isOsMetadata(name)) {
      throw nestedArchive(name);
    }
    declared.push({ entry, name, isDirectory });
  }
  checkFileDirectoryClashes(declared);
  return declared;
}

/** "a" as a file and "a/b" as another entry: one of them cannot exist when extracted. */
function checkFileDirectoryClashes(declared: Declared[]): void {
  const fileKeys = new Map<string, string>();
  for (const d of declared) if (!d.isDirectory) fileKeys.set(collisionKey(d.name), d.name);
  for (const d of declared) {
    const parts = collisionKey(d.name).split("/");
    for (let i = 1; i < parts.length; i++) {
      const clash = fileKeys.get(parts.slice(0, i).join("/"));
      if (clash !== undefined) {
        throw new ZipError(`zip entry ${quoteName(d.name)} is inside ${quoteName(clash)}, which is a file`);
      }
    }
  }
}

/**
 * Local headers are redundant copies that some tools trust instead of the central directory; they must agree
 * (name, encryption) and every entry's header+data span must be disjoint from all others.
 */
async function checkLocalHeaders(
  zip: RawZipFile, declared: Declared[], centralDirectoryOffset: number | undefined, archiveSize: number,
): Promise<void> {
  const spans: EntrySpan[] = [];
  const headers: LocalFileHeader[] = [];
  for (const d of declared) {
    let header: LocalFileHeader;
    try {
      header = await readLocalHeader(zip, d.entry);
    } catch (err) {
      throw corrupt(err, d.name);
    }
    const start = d.entry.relativeOffsetOfLocalHeader;
    if (header.fileDataStart < start + LOCAL_HEADER_FIXED) throw corrupt(new Error("bad local header"), d.name);
    spans.push({ name: d.name, start, end: header.fileDataStart + d.entry.compressedSize });
    headers.push(header);
  }
  // Overlap first: in a "better zip bomb" the local names disagree too, but overlap is the real finding.
  checkNoOverlap(spans, centralDirectoryOffset, archiveSize);
  declared.forEach((d, i) => {
    const header = headers[i];
    const q = quoteName(d.name);
    if (!header.fileName.equals(d.entry.fileNameRaw)) {
      throw new ZipError(`zip entry ${q} has a different name in its local header (ambiguous archive)`);
    }
    if (header.generalPurposeBitFlag & (FLAG_ENCRYPTED | FLAG_STRONG_ENCRYPTION)) {
      throw new ZipError(`zip entry ${q} is encrypted; encrypted entries are not allowed`);
    }
  });
}

async function inflate(zip: RawZipFile, d: Declared, limits: ZipLimits, totalBudget: number): Promise<Buffer> {
  const { entry, name } = d;
  const q = quoteName(name);
  const chunks: Buffer[] = [];
  let count = 0;
  try {
    const stream = await openEntryStream(zip, entry);
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      count += chunk.length;
      // yauzl's validateEntrySizes fails the stream too; counting here keeps the guarantee if that ever changes.
      if (count > entry.uncompressedSize) throw lyingSize(name, entry.uncompressedSize);
      if (count > limits.maxEntryBytes || count > totalBudget) {
        throw new ZipError(`zip entry ${q} inflates beyond the uncompressed size limit`);
      }
      checkRatio(name, count, entry.compressedSize, limits, "inflates to");
      chunks.push(chunk);
    }
  } catch (err) {
    if (err instanceof ZipError) throw err;
    const message = err instanceof Error ? err.message : "";
    if (/too many bytes in the stream/i.test(message)) throw lyingSize(name, entry.uncompressedSize);
    throw corrupt(err, name);
  }
  if (count !== entry.uncompressedSize) {
    throw new ZipError(`zip entry ${q} inflates to ${count} bytes but declares ${entry.uncompressedSize} (corrupt zip)`);
  }
  const data = Buffer.concat(chunks, count);
  // yauzl does not check CRCs; a mismatch means corruption or tampering between the headers and the data.
  if ((crc32(data) >>> 0) !== (entry.crc32 >>> 0)) {
    throw new ZipError(`zip entry ${q} fails its CRC-32 check (corrupt zip)`);
  }
  return data;
}

function checkRatio(name: string, uncompressed: number, compressed: number, limits: ZipLimits, verb: string): void {
  if (uncompressed < limits.ratioMinBytes) return;
  if (uncompressed > compressed * limits.maxCompressionRatio) {
    const ratio = compressed === 0 ? "an unbounded" : `a ${Math.round(uncompressed / compressed)}:1`;
    throw new ZipError(
      `zip entry ${quoteName(name)} ${verb} ${uncompressed} bytes from ${compressed}, ${ratio} compression ratio ` +
        `(at most ${limits.maxCompressionRatio}:1 is allowed; possible zip bomb)`,
    );
  }
}

function lyingSize(name: string, declared: number): ZipError {
  return new ZipError(`zip entry ${quoteName(name)} inflates to more than its declared ${declared} bytes (lying size header; possible zip bomb)`);
}

function nestedArchive(name: string): ZipError {
  return new ZipError(`zip entry ${quoteName(name)} is a nested archive; archives inside the zip are not allowed`);
}

/** yauzl and zlib messages name structures and offsets, never paths: safe to pass on, shortened. */
function corrupt(err: unknown, name?: string): ZipError {
  const raw = err instanceof Error ? err.message : String(err);
  if (/strong encryption/i.test(raw)) return new ZipError("the zip contains an encrypted entry; encrypted entries are not allowed");
  const reason = raw.replace(/[^\x20-\x7e]/g, "").slice(0, 160);
  const where = name === undefined ? "the zip" : `zip entry ${quoteName(name)}`;
  return new ZipError(`${where} is truncated or corrupt (${reason || "unreadable"})`);
}
