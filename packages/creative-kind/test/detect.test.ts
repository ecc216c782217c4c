// The kind detection shared by the CLI and the web console: which endpoint a file goes to, from its name and bytes.
import { describe, expect, it } from "vitest";
import { detectKind, ENDPOINTS } from "../browser/detect.js";

describe("the kind of a file, from its name and first bytes", () => {
  const bytes = (...parts: Array<string | number[]>) => new Uint8Array(Buffer.concat(parts.map((p) => (typeof p === "string" ? Buffer.from(p, "latin1") : Buffer.from(p)))));
  const ftyp = (brand: string) => bytes([0, 0, 0, 0x18], "ftyp", brand, [0, 0, 0, 0], "isom");
  const ts = new Uint8Array(600);
  for (const at of [0, 188, 376]) ts[at] = 0x47;
  const CASES: Array<[string, Uint8Array, string | undefined]> = [
    ["banner.zip", bytes("PK", [3, 4], "rest"), "zip"],
    ["empty.zip", bytes("PK", [5, 6], new Array(18).fill(0)), "zip"],
    ["renamed.html", bytes("PK", [3, 4], "rest"), "zip"],
    ["tag.html", bytes("<script src='x'></script>"), "tag"],
    ["tag.txt", bytes("document.write('x')"), "tag"],
    ["noext", bytes([0xef, 0xbb, 0xbf], "  <div>ad</div>"), "tag"],
    ["a.png", bytes([0x89], "PNG\r\n", [0x1a], "\n"), "image"],
    ["a.jpg", bytes([0xff, 0xd8, 0xff, 0xe0]), "image"],
    ["a.gif", bytes("GIF89a"), "image"],
    ["a.webp", bytes("RIFF", [0, 0, 0, 0], "WEBPVP8 "), "image"],
    ["a.avif", ftyp("avif"), "image"],
    ["logo.svg", bytes("<?xml version='1.0'?><svg xmlns='http://www.w3.org/2000/svg'/>"), "image"],
    ["a.mp4", ftyp("isom"), "video"],
    ["a.mov", ftyp("qt  "), "video"],
    ["a.m4a", ftyp("M4A "), "audio"],
    ["audio-only.m4a", ftyp("isom"), "audio"],
    ["a.webm", bytes([0x1a, 0x45, 0xdf, 0xa3]), "video"],
    ["a.weba", bytes([0x1a, 0x45, 0xdf, 0xa3]), "audio"],
    ["a.ogg", bytes("OggS"), "audio"],
    ["a.ogv", bytes("OggS"), "video"],
    ["a.ts", ts, "video"],
    ["a.mpg", bytes([0, 0, 1, 0xba]), "video"],
    ["a.avi", bytes("RIFF", [0, 0, 0, 0], "AVI LIST"), "video"],
    ["a.wav", bytes("RIFF", [0, 0, 0, 0], "WAVEfmt "), "audio"],
    ["a.mp3", bytes("ID3", [4, 0]), "audio"],
    ["raw.mp3", bytes([0xff, 0xfb, 0x90, 0x64]), "audio"],
    ["a.aac", bytes([0xff, 0xf1, 0x50, 0x80]), "audio"],
    ["a.flac", bytes("fLaC"), "audio"],
    ["vast.xml", bytes("<?xml version='1.0'?><VAST version='4.0'></VAST>"), undefined],
    ["blob.bin", bytes([1, 2, 3, 4]), undefined],
    ["empty.html", new Uint8Array(0), undefined],
    // Bytes nobody recognises: the extension decides, and the API says what is wrong with the file.
    ["broken.zip", bytes("not a zip"), "zip"],
    ["broken.mp4", bytes([1, 2, 3, 4]), "video"],
  ];
  it.each(CASES)("%s", (name, head, kind) => {
    expect(detectKind(name, head).kind).toBe(kind);
  });
  it("says how the caller's user scans a VAST document instead", () => {
    const vast = new TextEncoder().encode("<VAST version='4.0'></VAST>");
    expect(detectKind("v.xml", vast).why).toContain("(cva scan https://…/vast.xml)");
    expect(detectKind("v.xml", vast, 'choose "VAST URL"').why).toContain('(choose "VAST URL")');
  });
  it("names one v3 endpoint per kind", () => {
    expect(Object.values(ENDPOINTS)).toEqual(["/v3/scanTag", "/v3/scanZip", "/v3/scanVAST", "/v3/scanVideo", "/v3/scanImage", "/v3/scanAudio"]);
  });
});
