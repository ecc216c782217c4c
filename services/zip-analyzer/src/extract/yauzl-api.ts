import type { Readable } from "node:stream";
import yauzl from "yauzl";

/**
 * The part of yauzl 3.4 this service uses, typed here because @types/yauzl describes 2.x (no readLocalFileHeader,
 * no getFileNameLowLevel, no raw name buffers). Promise wrappers keep extract.ts linear.
 */
export interface RawEntry {
  versionMadeBy: number;
  generalPurposeBitFlag: number;
  compressionMethod: number;
  crc32: number;
  compressedSize: number;
  uncompressedSize: number;
  externalFileAttributes: number;
  relativeOffsetOfLocalHeader: number;
  fileNameRaw: Buffer;
  extraFields: Array<{ id: number; data: Buffer }>;
  isEncrypted(): boolean;
}

export interface LocalFileHeader {
  fileDataStart: number;
  generalPurposeBitFlag: number;
  compressionMethod: number;
  fileName: Buffer;
}

export interface RawZipFile {
  entryCount: number;
  /** Internal cursor; before the first readEntry() it is the central directory offset. */
  readEntryCursor?: number;
  readEntry(): void;
  once(event: "entry", cb: (entry: RawEntry) => void): void;
  once(event: "end", cb: () => void): void;
  once(event: "error", cb: (err: Error) => void): void;
  removeListener(event: string, cb: (...args: never[]) => void): void;
  readLocalFileHeader(entry: RawEntry, options: { minimal: false }, cb: (err: Error | null, h: LocalFileHeader) => void): void;
  openReadStream(entry: RawEntry, cb: (err: Error | null, stream: Readable) => void): void;
}

const y = yauzl as unknown as {
  fromBuffer(
    buffer: Buffer,
    options: { lazyEntries: boolean; decodeStrings: boolean; validateEntrySizes: boolean; strictFileNames: boolean },
    cb: (err: Error | null, zip: RawZipFile) => void,
  ): void;
  getFileNameLowLevel(flag: number, raw: Buffer, extraFields: RawEntry["extraFields"], strict: boolean): string;
};

export function openZip(buffer: Buffer): Promise<RawZipFile> {
  return new Promise((resolve, reject) => {
    // decodeStrings:false turns off yauzl's own name validation so that we can give specific messages;
    // validateEntrySizes makes yauzl fail a stream that inflates to more or less than declared.
    y.fromBuffer(buffer, { lazyEntries: true, decodeStrings: false, validateEntrySizes: true, strictFileNames: true },
      (err, zip) => (err ? reject(err) : resolve(zip)));
  });
}

/** Next central directory entry, or null at the end. */
export function nextEntry(zip: RawZipFile): Promise<RawEntry | null> {
  return new Promise((resolve, reject) => {
    const onEntry = (e: RawEntry): void => { cleanup(); resolve(e); };
    const onEnd = (): void => { cleanup(); resolve(null); };
    const onError = (err: Error): void => { cleanup(); reject(err); };
    const cleanup = (): void => {
      zip.removeListener("entry", onEntry as never);
      zip.removeListener("end", onEnd as never);
      zip.removeListener("error", onError as never);
    };
    zip.once("entry", onEntry);
    zip.once("end", onEnd);
    zip.once("error", onError);
    zip.readEntry();
  });
}

export function readLocalHeader(zip: RawZipFile, entry: RawEntry): Promise<LocalFileHeader> {
  return new Promise((resolve, reject) =>
    zip.readLocalFileHeader(entry, { minimal: false }, (err, h) => (err ? reject(err) : resolve(h))));
}

export function openEntryStream(zip: RawZipFile, entry: RawEntry): Promise<Readable> {
  return new Promise((resolve, reject) => zip.openReadStream(entry, (err, s) => (err ? reject(err) : resolve(s))));
}

/** Name as the spec decodes it (UTF-8 flag or CP437, Info-ZIP Unicode Path field); separators as written. */
export function decodeEntryName(entry: RawEntry): string {
  return y.getFileNameLowLevel(entry.generalPurposeBitFlag, entry.fileNameRaw, entry.extraFields ?? [], true);
}
