import { describe, expect, it } from "vitest";
import { extractZip, ZipError } from "../src/index.ts";
import { buildZip, type ZipEntrySpec } from "./zip-writer.ts";

const INDEX: ZipEntrySpec = { name: "index.html", data: "<!doctype html><title>x</title>" };

async function refusal(zip: Buffer, limits?: Parameters<typeof extractZip>[1]): Promise<ZipError> {
  try {
    await extractZip(zip, limits);
  } catch (err) {
    expect(err).toBeInstanceOf(ZipError);
    return err as ZipError;
  }
  throw new Error("the zip was accepted");
}

describe("extractZip: honest archives", () => {
  it("inflates stored and deflated entries, skipping directories and OS metadata", async () => {
    const zip = buildZip([
      { name: "banner/", method: 0 },
      { name: "banner/index.html", data: "<html></html>" },
      { name: "banner/a.js", data: "var a = 1;", method: 0 },
      { name: "__MACOSX/banner/._index.html", data: "junk" },
      { name: "banner/.DS_Store", data: "junk" },
    ]);
    const out = await extractZip(zip);
    expect(out.files.map((f) => [f.name, f.data.toString()])).toEqual([
      ["banner/index.html", "<html></html>"],
      ["banner/a.js", "var a = 1;"],
    ]);
    expect(out.ignored).toEqual(["__MACOSX/banner/._index.html", "banner/.DS_Store"]);
    expect(out.entryCount).toBe(5);
  });

  it("reads a Windows Compress-Archive zip: backslash separators become \"/\" (was refused)", async () => {
    // What PowerShell 5.1's Compress-Archive writes for a folder's contents: MS-DOS host, "\\" between path segments.
    const dos = 20; // version made by: host 0 (MS-DOS/FAT), spec 2.0
    const out = await extractZip(buildZip([
      { name: "index.html", data: "<html></html>", versionMadeBy: dos },
      { name: "css\\style.css", data: "body{}", versionMadeBy: dos },
      { name: "img\\sub\\logo.png", data: "png", versionMadeBy: dos },
    ]));
    expect(out.files.map((f) => f.name)).toEqual(["index.html", "css/style.css", "img/sub/logo.png"]);
  });

  it("accepts exactly the entry limit", async () => {
    const entries = Array.from({ length: 1000 }, (_, i) => ({ name: `f${i}.txt`, data: "x", method: 0 as const }));
    expect((await extractZip(buildZip(entries))).files).toHaveLength(1000);
  });
});

describe("extractZip: hostile archives", () => {
  const cases: Array<[string, () => Buffer, RegExp, Parameters<typeof extractZip>[1]?]> = [
    ["path traversal", () => buildZip([INDEX, { name: "../evil.js", data: "x" }]),
      /^zip entry "\.\.\/evil\.js" escapes the archive root \(path traversal\)$/],
    ["traversal deeper in the path", () => buildZip([INDEX, { name: "js/../../evil.js", data: "x" }]), /path traversal/],
    ["absolute path", () => buildZip([INDEX, { name: "/etc/passwd", data: "x" }]), /^zip entry "\/etc\/passwd" is an absolute path$/],
    ["drive letter", () => buildZip([INDEX, { name: "C:/Windows/evil.dll", data: "x" }]), /starts with a drive letter/],
    // A backslash is a separator (Windows zips), so a backslash traversal is a traversal and a backslash twin a duplicate.
    ["backslash traversal", () => buildZip([INDEX, { name: "..\\evil.js", data: "x" }]), /^zip entry "\.\.\/evil\.js" escapes the archive root/],
    ["backslash traversal deeper in the path", () => buildZip([INDEX, { name: "js\\..\\..\\evil.js", data: "x" }]), /path traversal/],
    ["the same file with both separators", () => buildZip([INDEX, { name: "js/a.js", data: "1" }, { name: "js\\a.js", data: "2" }]),
      /^zip entry "js\/a\.js" appears more than once/],
    ["NUL in name", () => buildZip([INDEX, { name: "a", rawName: Buffer.from("index.html\0.png"), data: "x" }]),
      /has a NUL character in its name/],
    ["symlink", () => buildZip([INDEX, { name: "link", data: "/etc/passwd", externalAttributes: (0o120777 << 16) >>> 0 }]),
      /^zip entry "link" is a symbolic link; symlinks are not allowed$/],
    ["encrypted flag", () => buildZip([INDEX, { name: "secret.js", data: "x", flags: 0x801 }]),
      /^zip entry "secret\.js" is encrypted; encrypted entries are not allowed$/],
    ["encrypted only in the local header", () => patchLocalFlag(),
      /"b\.js" is encrypted/],
    ["duplicate names", () => buildZip([INDEX, { name: "a.js", data: "1" }, { name: "a.js", data: "2" }]),
      /^zip entry "a\.js" appears more than once \(duplicate names are not allowed\)$/],
    ["names differing only in case", () => buildZip([INDEX, { name: "Logo.png", data: "1" }, { name: "logo.PNG", data: "2" }]),
      /^zip entries "Logo\.png" and "logo\.PNG" differ only in letter case/],
    ["file used as a directory", () => buildZip([INDEX, { name: "a", data: "1" }, { name: "a/b.js", data: "2" }]),
      /"a\/b\.js" is inside "a", which is a file/],
    ["too many entries", () => buildZip(Array.from({ length: 1001 }, (_, i) => ({ name: `f${i}`, data: "", method: 0 as const }))),
      /^the zip has 1001 entries; at most 1000 are allowed$/],
    ["declared-size bomb (one entry)", () => buildZip([INDEX, { name: "big.bin", data: "x", uncompressedSize: 60 * 1024 * 1024 }]),
      /^zip entry "big\.bin" declares 62914560 bytes uncompressed; at most 52428800 are allowed per entry$/],
    ["declared-size bomb (total)", () => buildZip([INDEX, ...[1, 2, 3].map((i) => ({ name: `b${i}.bin`, data: "x", uncompressedSize: 20 * 1024 * 1024 }))]),
      /^the zip declares more than 52428800 bytes uncompressed in total \(limit exceeded at entry "b3\.bin"\)$/,
      { maxCompressionRatio: 1e9 }],
    ["declared compression ratio", () => buildZip([INDEX, { name: "r.txt", data: Buffer.alloc(4 * 1024 * 1024) }]),
      /^zip entry "r\.txt" declares 4194304 bytes from \d+, a \d+:1 compression ratio \(at most 200:1 is allowed; possible zip bomb\)$/],
    ["lying size caught while inflating", () => buildZip([INDEX, { name: "liar.txt", data: Buffer.alloc(2_000_000, 0x61), uncompressedSize: 1000 }]),
      /^zip entry "liar\.txt" inflates to more than its declared 1000 bytes \(lying size header; possible zip bomb\)$/],
    ["overlapping entries (shared data)", () => buildZip([INDEX, { name: "k.txt", data: "kernel" }, { name: "k2.txt", data: "kernel", sharesDataOf: 1 }]),
      /^zip entries "k\.txt" and "k2\.txt" share the same data in the archive \(overlapping entries are a zip bomb technique and are not allowed\)$/],
    ["overlapping entries (header inside another's data)", overlappingHeaders,
      /^zip entries "k\.txt" and "j\.txt" overlap in the archive/],
    ["truncated", () => buildZip([INDEX, { name: "a.js", data: "var a = 1;".repeat(50) }]).subarray(0, 120),
      /^the zip is truncated or corrupt: its end of central directory record is missing$/],
    ["corrupt data (CRC)", () => buildZip([INDEX, { name: "a.js", data: "var a = 1;", crc: 1234 }]), /^zip entry "a\.js" fails its CRC-32 check \(corrupt zip\)$/],
    ["not a zip", () => Buffer.from("<html>definitely not a zip</html>"), /^the data is not a zip archive$/],
    ["empty input", () => Buffer.alloc(0), /^the zip is empty \(0 bytes\)$/],
    ["nested zip by name", () => buildZip([INDEX, { name: "assets/inner.zip", data: buildZip([INDEX]) }]),
      /^zip entry "assets\/inner\.zip" is a nested archive; archives inside the zip are not allowed$/],
    ["nested zip by magic bytes", () => buildZip([INDEX, { name: "assets/data.bin", data: buildZip([INDEX]) }]),
      /^zip entry "assets\/data\.bin" is a nested archive/],
    ["unsupported compression method", () => withMethod(buildZip([INDEX, { name: "a.js", data: "x", method: 0 }]), "a.js", 14),
      /uses compression method 14; only stored and deflate are supported/],
  ];

  for (const [threat, make, message, limits] of cases) {
    it(`refuses: ${threat}`, async () => {
      const err = await refusal(make(), limits);
      expect(err.message).toMatch(message);
    });
  }

  it("refuses a zip over the compressed size limit before parsing it", async () => {
    const err = await refusal(buildZip([INDEX]), { maxCompressedBytes: 10 });
    expect(err.message).toMatch(/^the zip is \d+ bytes; at most 10 bytes are allowed$/);
  });

  it("honours configured limits", async () => {
    const zip = buildZip([INDEX, { name: "a.txt", data: "x" }, { name: "b.txt", data: "y" }]);
    expect((await refusal(zip, { maxEntries: 2 })).message).toBe("the zip has 3 entries; at most 2 are allowed");
  });

  it("lists nested archives as files when configured to", async () => {
    const out = await extractZip(buildZip([INDEX, { name: "inner.zip", data: buildZip([INDEX]) }]), { nestedArchives: "list" });
    expect(out.files.find((f) => f.name === "inner.zip")?.archive).toBe(true);
  });

  it("finds a declared bomb without inflating anything (the bomb is never read)", async () => {
    // The data is garbage: inflating it would fail with a zlib error, so a size error proves the order of checks.
    const zip = buildZip([INDEX, { name: "bomb.bin", data: Buffer.from("not deflate data"), method: 0, compressedSize: 16, uncompressedSize: 16 }]);
    const patched = withMethod(zip, "bomb.bin", 8);
    patchSizes(patched, "bomb.bin", 900 * 1024 * 1024);
    expect((await refusal(patched)).message).toMatch(/declares 943718400 bytes uncompressed/);
  });
});

/** Fifield-style overlap: j.txt's (valid) local header and data sit inside k.txt's stored data. */
function overlappingHeaders(): Buffer {
  const inner = buildZip([{ name: "j.txt", data: "x", method: 0 }]);
  const jLocal = inner.subarray(0, 30 + "j.txt".length + 1);
  return buildZip([
    INDEX,
    { name: "k.txt", data: jLocal, method: 0 },
    { name: "j.txt", data: "x", method: 0, sharesDataOf: 1, offsetFrom: 1, offsetDelta: 30 + "k.txt".length },
  ]);
}

/** A zip whose central directory says b.js is not encrypted, while its local header says it is. */
function patchLocalFlag(): Buffer {
  const zip = buildZip([INDEX, { name: "b.js", data: "x" }]);
  const at = zip.indexOf(Buffer.from("b.js")) - 30; // first occurrence: the local header
  zip.writeUInt16LE(zip.readUInt16LE(at + 6) | 1, at + 6);
  return zip;
}

/** Rewrites the compression method of `name` in both headers. */
function withMethod(zip: Buffer, name: string, method: number): Buffer {
  for (const [sig, fieldOffset, nameOffset] of [[0x04034b50, 8, 30], [0x02014b50, 10, 46]] as const) {
    for (let i = 0; i < zip.length - 4; i++) {
      if (zip.readUInt32LE(i) !== sig) continue;
      const nameLen = zip.readUInt16LE(i + (sig === 0x04034b50 ? 26 : 28));
      if (zip.subarray(i + nameOffset, i + nameOffset + nameLen).toString() === name) zip.writeUInt16LE(method, i + fieldOffset);
    }
  }
  return zip;
}

/** Rewrites the uncompressed size of `name` in both headers. */
function patchSizes(zip: Buffer, name: string, size: number): void {
  for (const [sig, fieldOffset, nameOffset, lenOffset] of [[0x04034b50, 22, 30, 26], [0x02014b50, 24, 46, 28]] as const) {
    for (let i = 0; i < zip.length - 4; i++) {
      if (zip.readUInt32LE(i) !== sig) continue;
      const nameLen = zip.readUInt16LE(i + lenOffset);
      if (zip.subarray(i + nameOffset, i + nameOffset + nameLen).toString() === name) zip.writeUInt32LE(size, i + fieldOffset);
    }
  }
}
