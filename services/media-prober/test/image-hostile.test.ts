// Hostile input to scanImage (issue 19 §7), generated here: decompression bombs (headers claiming huge canvases, a
// GIF with 100 000 frames), files that are not images under an image's name, broken images, SVGs reaching out to
// the network and the file system, a decode past its time. Each gets its documented ImageInputError (payload_error)
// well within a scan's deadline, the worker process stays bounded, and a normal image is measured right after.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { crc32 } from "node:zlib";
import { createMemoryArtifactSink } from "@cva/platform";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createImageAnalyzer, DEFAULT_IMAGE_LIMITS, ImageInputError, type ImageAnalyzer } from "../src/image/index.ts";

const artifacts = createMemoryArtifactSink();
let analyzer: ImageAnalyzer;
let dir: string;

beforeAll(async () => {
  analyzer = createImageAnalyzer({ artifacts });
  dir = await mkdtemp(join(tmpdir(), "cva-image-hostile-"));
  // Started here, so the times below are the refusals' own (from source, tsx makes a start take seconds).
  await analyzer.warmUp();
});
afterAll(async () => {
  await analyzer?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Resolves to the ImageInputError the analysis threw (fails the test if it measured or threw anything else). */
async function refusal(a: ImageAnalyzer, input: Uint8Array | string): Promise<{ message: string; ms: number }> {
  const t = performance.now();
  const e = await a.analyze(input).then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e, "the analysis should have been refused").toBeInstanceOf(ImageInputError);
  return { message: (e as Error).message, ms: performance.now() - t };
}

const smallPng = () => sharp({ create: { width: 16, height: 12, channels: 3, background: "#3366aa" } }).png().toBuffer();

/** A normal image is still measured (after a refusal, a kill, a time-out). */
async function stillMeasures(a: ImageAnalyzer): Promise<void> {
  const r = await a.analyze(await smallPng());
  expect([r.width, r.height]).toEqual([16, 12]);
}

/** A 16x16 lossless WebP in the extended format (VP8X canvas, then the VP8L bitstream): EXIF makes libwebp write VP8X. */
const extendedWebp = async () =>
  Buffer.from(await sharp({ create: { width: 16, height: 16, channels: 3, background: "#808080" } }).withExif({ IFD0: { Make: "x" } }).webp({ lossless: true }).toBuffer());

/** Rewrites a PNG's IHDR size and its CRC. */
function claimPngSize(png: Buffer, w: number, h: number): Buffer {
  const b = Buffer.from(png);
  b.writeUInt32BE(w, 16);
  b.writeUInt32BE(h, 20);
  b.writeUInt32BE(crc32(b.subarray(12, 29)), 29);
  return b;
}

describe("decompression bombs: refused by their header's claim, before any decoder runs", () => {
  it("a PNG whose IHDR claims 100000x100000 (10 G pixels)", async () => {
    const fresh = createImageAnalyzer({ artifacts });
    try {
      const { message, ms } = await refusal(fresh, claimPngSize(await smallPng(), 100_000, 100_000));
      expect(message).toBe(`the PNG header claims 100000x100000 (10000000000 pixels), over the limit of ${DEFAULT_IMAGE_LIMITS.maxPixels} pixels; not decoded`);
      expect(ms).toBeLessThan(1000);
      // Not even a worker process was started for it.
      expect(fresh.workerPids()).toEqual([]);
    } finally {
      await fresh.close();
    }
  });

  it("a WebP whose VP8X canvas claims 16384x16384", async () => {
    const webp = await extendedWebp();
    expect(webp.toString("latin1", 12, 16)).toBe("VP8X");
    webp.writeUIntLE(16383, 24, 3);
    webp.writeUIntLE(16383, 27, 3);
    const { message } = await refusal(analyzer, webp);
    expect(message).toMatch(/^the WebP header claims 16384x16384 \(268435456 pixels\), over the limit of \d+ pixels; not decoded$/);
  });

  it("a WebP whose 16x16 canvas holds a bitstream claiming 16383x16383: the decoder refuses it, bounded", async () => {
    const webp = await extendedWebp();
    const at = webp.indexOf("VP8L", 12, "latin1");
    expect(webp.toString("latin1", 12, 16)).toBe("VP8X");
    expect(at).toBeGreaterThan(12);
    // VP8L: chunk header, signature 0x2f, then 14 bits width-1 and 14 bits height-1.
    const bits = webp.readUInt32LE(at + 9);
    webp.writeUInt32LE(((bits & ~0x0fffffff) | (16382 << 14) | 16382) >>> 0, at + 9);
    const { message, ms } = await refusal(analyzer, webp);
    expect(message).toMatch(/^the WebP could not be decoded \(corrupt or truncated\): /);
    expect(ms).toBeLessThan(10_000);
    await stillMeasures(analyzer);
  });

  it("a GIF with 100 000 frames, counted from its blocks without decoding one", async () => {
    const head = [...Buffer.from("GIF89a"), 1, 0, 1, 0, 0x80, 0, 0, 0, 0, 0, 255, 255, 255];
    const frame = [0x21, 0xf9, 4, 0, 1, 0, 0, 0, 0x2c, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2, 2, 0x44, 0x01, 0];
    const gif = Buffer.alloc(head.length + frame.length * 100_000 + 1);
    gif.set(head, 0);
    for (let k = 0; k < 100_000; k++) gif.set(frame, head.length + k * frame.length);
    gif[gif.length - 1] = 0x3b;
    const { message, ms } = await refusal(analyzer, gif);
    expect(message).toBe(`the GIF has 100000 frames, over the limit of ${DEFAULT_IMAGE_LIMITS.maxFrames}; not decoded`);
    expect(ms).toBeLessThan(5000);
  });
});

describe("not an image, whatever its name says", () => {
  it("a zip archive renamed .png", async () => {
    // A stored zip entry (local header, data, central directory, end record): a real archive, not just a signature.
    const name = Buffer.from("index.html");
    const data = Buffer.from("<html><body>ad</body></html>");
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(10, 4);
    local.writeUInt32LE(crc32(data), 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(10, 6);
    central.writeUInt32LE(crc32(data), 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(name.length, 28);
    const end = Buffer.alloc(22);
    end.writeUInt32LE(0x06054b50, 0);
    end.writeUInt16LE(1, 8);
    end.writeUInt16LE(1, 10);
    end.writeUInt32LE(46 + name.length, 12);
    end.writeUInt32LE(30 + name.length + data.length, 16);
    const path = join(dir, "banner.png");
    await writeFile(path, Buffer.concat([local, name, data, central, name, end]));
    expect((await refusal(analyzer, path)).message).toBe("not an image: the file is a zip archive");
  });

  it("an HTML page renamed .png", async () => {
    const path = join(dir, "page.png");
    await writeFile(path, "<!DOCTYPE html>\n<html><head><title>x</title></head><body><img src=x></body></html>");
    expect((await refusal(analyzer, path)).message).toBe("not an image: the file is an HTML document");
  });

  it("TIFF, BMP and an MP4 are named; an empty file and an oversized one are refused before reading", async () => {
    const tiff = await sharp({ create: { width: 4, height: 4, channels: 3, background: "#000" } }).tiff().toBuffer();
    expect((await refusal(analyzer, tiff)).message).toBe("unsupported image format: TIFF (scanImage accepts PNG, JPEG, GIF, WebP, AVIF and SVG)");
    expect((await refusal(analyzer, Buffer.from("BM\u0000\u0000\u0000\u0000"))).message).toMatch(/^unsupported image format: BMP/);
    const mp4 = Buffer.concat([Buffer.from([0, 0, 0, 24]), Buffer.from("ftypisom\u0000\u0000\u0002\u0000isomiso2"), Buffer.alloc(64)]);
    expect((await refusal(analyzer, mp4)).message).toBe('not an image: the file is a video or audio file (ISO BMFF brand "isom")');
    expect((await refusal(analyzer, new Uint8Array(0))).message).toBe("empty file");
    const path = join(dir, "huge.png");
    await writeFile(path, Buffer.alloc(DEFAULT_IMAGE_LIMITS.maxBytes + 1));
    expect((await refusal(analyzer, path)).message).toBe(`the image is ${DEFAULT_IMAGE_LIMITS.maxBytes + 1} bytes, over the limit of ${DEFAULT_IMAGE_LIMITS.maxBytes} bytes (20 MB)`);
  });

  it("a truncated PNG and a JPEG cut after its header are refused as corrupt", async () => {
    const png = await sharp({ create: { width: 200, height: 200, channels: 3, background: "#000000", noise: { type: "gaussian", mean: 128, sigma: 40 } } }).png().toBuffer();
    expect((await refusal(analyzer, png.subarray(0, png.length >> 1))).message).toMatch(/^the PNG could not be decoded \(corrupt or truncated\): /);
    const jpeg = await sharp({ create: { width: 200, height: 200, channels: 3, background: "#000000", noise: { type: "gaussian", mean: 128, sigma: 40 } } }).jpeg().toBuffer();
    expect((await refusal(analyzer, jpeg.subarray(0, 700))).message).toMatch(/^the JPEG could not be decoded \(corrupt or truncated\): /);
    await stillMeasures(analyzer);
  });
});

describe("SVG: no network, no file system, bounded parsing", () => {
  let server: Server;
  let requests: string[];
  let base: string;
  beforeAll(async () => {
    requests = [];
    server = createServer((req, res) => {
      requests.push(req.url ?? "");
      res.writeHead(200, { "content-type": "image/png" });
      void smallPng().then((b) => res.end(b));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it("external images, a stylesheet, a font and a use reference are not fetched; a local file is not read", async () => {
    const red = join(dir, "red.png");
    await writeFile(red, await sharp({ create: { width: 300, height: 250, channels: 3, background: "#ff0000" } }).png().toBuffer());
    const svg = `<?xml version="1.0"?>
<?xml-stylesheet href="${base}/sheet.css"?>
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="300" height="250">
  <style>@import url(${base}/import.css); @font-face { font-family: x; src: url(${base}/font.woff); }</style>
  <rect width="300" height="250" fill="#0000ff"/>
  <image href="${base}/pixel.png" width="300" height="250"/>
  <image xlink:href="${base}/pixel2.png" width="300" height="250"/>
  <image href="file://${red}" width="300" height="250"/>
  <image href="${red}" width="300" height="250"/>
  <use href="${base}/sprite.svg#a"/>
  <text x="10" y="20" font-family="x">hello</text>
</svg>`;
    const r = await analyzer.analyze(Buffer.from(svg));
    expect(requests).toEqual([]);
    // What was drawn is the blue rectangle alone: neither the local red PNG nor the served one.
    expect(r.screenshot!.color).toBe("#0000ff");
  });

  it("an entity-expansion bomb (billion laughs) is refused by the XML parser, quickly", async () => {
    const lol = ['<!ENTITY l0 "lollollollollollollollollollol">'];
    for (let k = 1; k < 10; k++) lol.push(`<!ENTITY l${k} "${`&l${k - 1};`.repeat(10)}">`);
    const svg = `<?xml version="1.0"?><!DOCTYPE svg [${lol.join("")}]><svg xmlns="http://www.w3.org/2000/svg" width="300" height="250"><text y="20">&l9;</text></svg>`;
    const { message, ms } = await refusal(analyzer, Buffer.from(svg));
    expect(message).toMatch(/^the SVG could not be decoded \(corrupt or truncated\): /);
    expect(ms).toBeLessThan(10_000);
    await stillMeasures(analyzer);
  });

  it("an SVG claiming 100000x100000 is drawn within the render budget, not refused", async () => {
    const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="100000" height="100000"><rect width="100%" height="100%" fill="#00ff00"/></svg>';
    const r = await analyzer.analyze(Buffer.from(svg));
    expect([r.width, r.height]).toEqual([100_000, 100_000]);
    const shot = await sharp(artifacts.get(r.screenshot!.id)!.data).metadata();
    expect(shot.width! * shot.height!).toBeLessThanOrEqual(DEFAULT_IMAGE_LIMITS.renderMaxPixels);
  });

  it("an SVG over the SVG size limit is refused before parsing", async () => {
    const svg = Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"><!--${"x".repeat(DEFAULT_IMAGE_LIMITS.maxSvgBytes)}--></svg>`);
    expect((await refusal(analyzer, svg)).message).toMatch(/^the SVG is \d+ bytes, over the SVG limit of 5242880 bytes \(5 MB\)$/);
  });
});

describe("the worker process: OS limits, time-out, replacement", () => {
  it("runs under its RLIMIT_AS and RLIMIT_CPU, in its own process", async () => {
    const a = createImageAnalyzer({ artifacts, decode: { addressSpaceBytes: 2000 * 1024 ** 2, cpuSeconds: 321 } });
    try {
      await a.warmUp();
      const [pid] = a.workerPids();
      expect(pid).toBeGreaterThan(0);
      expect(pid).not.toBe(process.pid);
      const limits = await readFile(`/proc/${pid}/limits`, "utf8");
      expect(limits).toMatch(new RegExp(`Max address space\\s+${2000 * 1024 ** 2}\\s+${2000 * 1024 ** 2}\\s+bytes`));
      expect(limits).toMatch(/Max cpu time\s+321\s+322\s+seconds/);
      await stillMeasures(a);
    } finally {
      await a.close();
    }
  });

  let big: Buffer;
  beforeAll(async () => {
    // 1500x1500 of noise: hundreds of ms to decode and re-encode, against the 30 ms limits below.
    big = await sharp({ create: { width: 1500, height: 1500, channels: 3, background: "#000000", noise: { type: "gaussian", mean: 128, sigma: 40 } } }).png({ compressionLevel: 1 }).toBuffer();
  });

  it("a decode past its time-out is killed and refused; the next image gets a fresh process", async () => {
    const a = createImageAnalyzer({ artifacts, decode: { timeoutMs: 30 } });
    try {
      await a.warmUp();
      const [before] = a.workerPids();
      expect((await refusal(a, big)).message).toBe("decoding the image took over 30 ms; not measured");
      // The killed process is gone (its zombie reaped), not left decoding.
      await expect.poll(() => {
        try {
          process.kill(before!, 0);
          return "alive";
        } catch {
          return "gone";
        }
      }, { timeout: 10_000 }).toBe("gone");
      await a.warmUp();
      expect(a.workerPids()).toHaveLength(1);
      expect(a.workerPids()[0]).not.toBe(before);
    } finally {
      await a.close();
    }
  });

  it("the scan's deadline, when nearer than the time-out, stops the decode as the service's failure, not the file's", async () => {
    // 1 s of the deadline is kept for storing the screenshot and replying: 30 ms are left for decoding.
    const e = await analyzer.analyze(big, { deadline: Date.now() + 1_030 }).then(() => undefined, (err: unknown) => err);
    expect(e).toBeInstanceOf(Error);
    expect(e).not.toBeInstanceOf(ImageInputError);
    expect((e as Error).message).toMatch(/the scan's deadline was reached/);
    await stillMeasures(analyzer);
  });
});
