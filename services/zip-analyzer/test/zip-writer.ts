import { crc32, deflateRawSync } from "node:zlib";

/**
 * A tiny zip writer for tests: honest archives by default, and every header field overridable so hostile archives
 * can be crafted byte by byte (lying sizes, shared data, symlink modes, encryption flags, …).
 */
export interface ZipEntrySpec {
  name: string;
  data?: Buffer | string;
  /** 0 = stored, 8 = deflate (default). */
  method?: 0 | 8;
  /** Overrides of the header fields written for this entry (central directory and local header alike). */
  flags?: number;
  uncompressedSize?: number;
  compressedSize?: number;
  crc?: number;
  externalAttributes?: number;
  versionMadeBy?: number;
  /** Name written in the local header only. */
  localName?: string;
  /** Write no local header/data; the central entry points at the local header of entry `sharesDataOf`. */
  sharesDataOf?: number;
  /** Central directory's local header offset = that of entry `offsetFrom` plus `offsetDelta`. */
  offsetFrom?: number;
  offsetDelta?: number;
  /** Raw file name bytes (e.g. to embed NUL), used instead of `name` in both headers. */
  rawName?: Buffer;
}

export interface ZipOptions {
  /** Entry count written in the end of central directory record. */
  entryCount?: number;
}

export function buildZip(entries: ZipEntrySpec[], options: ZipOptions = {}): Buffer {
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  const offsets: number[] = [];
  let offset = 0;
  entries.forEach((e, i) => {
    const data = typeof e.data === "string" ? Buffer.from(e.data) : (e.data ?? Buffer.alloc(0));
    const method = e.method ?? 8;
    const body = method === 8 ? deflateRawSync(data) : data;
    const name = e.rawName ?? Buffer.from(e.name, "utf8");
    const flags = e.flags ?? 0x800;
    const crc = e.crc ?? crc32(data);
    const csize = e.compressedSize ?? body.length;
    const usize = e.uncompressedSize ?? data.length;
    let localOffset: number;
    if (e.sharesDataOf !== undefined) {
      localOffset = offsets[e.sharesDataOf];
    } else {
      localOffset = offset;
      const localName = e.localName !== undefined ? Buffer.from(e.localName) : name;
      const local = Buffer.alloc(30);
      local.writeUInt32LE(0x04034b50, 0);
      local.writeUInt16LE(20, 4);
      local.writeUInt16LE(flags, 6);
      local.writeUInt16LE(method, 8);
      local.writeUInt32LE(0, 10);
      local.writeUInt32LE(crc >>> 0, 14);
      local.writeUInt32LE(csize, 18);
      local.writeUInt32LE(usize, 22);
      local.writeUInt16LE(localName.length, 26);
      local.writeUInt16LE(0, 28);
      parts.push(local, localName, body);
      offset += local.length + localName.length + body.length;
    }
    if (e.offsetFrom !== undefined) localOffset = offsets[e.offsetFrom] + (e.offsetDelta ?? 0);
    offsets[i] = localOffset;
    const c = Buffer.alloc(46);
    c.writeUInt32LE(0x02014b50, 0);
    c.writeUInt16LE(e.versionMadeBy ?? (3 << 8) | 20, 4);
    c.writeUInt16LE(20, 6);
    c.writeUInt16LE(flags, 8);
    c.writeUInt16LE(method, 10);
    c.writeUInt32LE(0, 12);
    c.writeUInt32LE(crc >>> 0, 16);
    c.writeUInt32LE(csize, 20);
    c.writeUInt32LE(usize, 24);
    c.writeUInt16LE(name.length, 28);
    c.writeUInt16LE(0, 30);
    c.writeUInt16LE(0, 32);
    c.writeUInt16LE(0, 34);
    c.writeUInt16LE(0, 36);
    c.writeUInt32LE((e.externalAttributes ?? ((0o100644 << 16) >>> 0)) >>> 0, 38);
    c.writeUInt32LE(localOffset, 42);
    central.push(c, name);
  });
  const cd = Buffer.concat(central);
  const eocd = Buffer.alloc(22);
  eocd.writeUInt32LE(0x06054b50, 0);
  const count = options.entryCount ?? entries.length;
  eocd.writeUInt16LE(count, 8);
  eocd.writeUInt16LE(count, 10);
  eocd.writeUInt32LE(cd.length, 12);
  eocd.writeUInt32LE(offset, 16);
  return Buffer.concat([...parts, cd, eocd]);
}
