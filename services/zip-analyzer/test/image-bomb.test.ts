// Hostile: images built to exhaust the zip analyzer while image_optimization re-encodes them. A PNG whose IDAT is a
// deflate bomb (64 KB that inflate to 64 MB) behind a header claiming 100x100 pixels, a PNG whose header claims
// 40000x40000, a JPEG larger than the worker's heap allows, an image slower than its time: each is refused or stopped
// with a clear per-image result, the zip's report and its other images are unaffected, and the event loop — where
// the job's heartbeats and every other job of the process run — keeps turning. Before, the bomb was inflated in full
// on the main thread (a 261 KB zip took the process from 134 to 614 MiB and stalled it for 1 s; a 300 KB PNG could
// OOM-kill a 768 Mi container, and the job was redelivered three times).
import { crc32, deflateSync } from "node:zlib";
import { create } from "@bufbuild/protobuf";
import { DimensionsSchema, ScanJobSchema, ScanKind, TagReportSchema, type Bundle, type TagReport } from "@cva/contracts";
import { evaluateZip } from "@cva/spec-sets";
import jpeg from "jpeg-js";
import { describe, expect, it } from "vitest";
import { createZipAnalyzer } from "../src/index.ts";
import { checkImages } from "../src/fields/image-optimization.ts";
import { ORIGIN } from "./fixtures.ts";
import { buildZip } from "./zip-writer.ts";

function pngChunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([Buffer.from(type, "latin1"), data])));
  return Buffer.concat([len, Buffer.from(type, "latin1"), data, crc]);
}

/** A PNG of the declared size (8-bit RGB) whose IDAT is `idat`, deflated at `level`. */
function pngWith(w: number, h: number, idat: Buffer, level = 9, interlace = 0): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr.set([8, 2, 0, 0, interlace], 8);
  return Buffer.concat([
    Buffer.from("89504e470d0a1a0a", "hex"),
    pngChunk("IHDR", ihdr),
    pngChunk("IDAT", deflateSync(idat, { level })),
    pngChunk("IEND", Buffer.alloc(0)),
  ]);
}

/**
 * A real w x h RGB PNG of noise (slow to deflate: ~300 ms for 2000x2000 at level 9 on the 2-core host), stored
 * uncompressed. xorshift32, not an LCG's top bits: those repeated enough that zlib re-encoded 2000x2000 in 35-55 ms,
 * under the 50 ms a test below needs it to exceed (a failed CI run, 2026-11-27).
 */
function noisePng(w: number, h: number, level = 0): Buffer {
  const raw = Buffer.alloc(h * (1 + w * 3));
  let x = 2463534242;
  for (let i = 0; i < raw.length; i++) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    raw[i] = i % (1 + w * 3) === 0 ? 0 : x & 0x3f;
  }
  return pngWith(w, h, raw, level);
}

const smallPng = () => pngWith(4, 4, Buffer.alloc(4 * (1 + 4 * 3)), 0);
// 64 MB of zeros deflate to ~64 KB; the header claims 100x100 RGB, 30 100 bytes of pixel data.
const BOMB = pngWith(100, 100, Buffer.alloc(64 * 1024 * 1024));

describe("image_optimization under hostile images", () => {
  it("stops inflating a PNG bomb at the size its header declares, and says so for that image alone", async () => {
    expect(BOMB.length).toBeLessThan(100 * 1024);
    const spun = spin();
    const checks = await checkImages([
      { name: "bomb.png", data: BOMB },
      { name: "ok.png", data: smallPng() },
    ]);
    spun.stop();
    expect(checks[0]).toMatchObject({
      name: "bomb.png",
      width: 100,
      height: 100,
      reencodedBytes: 0,
      error: "not checked: its pixel data inflates past the 30100 bytes its header declares (a decompression bomb)",
    });
    expect(checks[1]).toMatchObject({ name: "ok.png", error: "" });
    expect(checks[1]!.reencodedBytes).toBeGreaterThan(0);
  });

  it("bounds a bomb whose header declares the most pixels allowed by the absolute cap as well", async () => {
    const [check] = await checkImages([{ name: "big.png", data: pngWith(2000, 2000, Buffer.alloc(64 * 1024 * 1024)) }], { maxInflatedBytes: 4 * 1024 * 1024 });
    expect(check!.error).toBe(`not checked: its pixel data inflates past ${4 * 1024 * 1024} bytes, the limit for any image`);
  });

  it("refuses a header claiming 40000x40000 before any decoding", async () => {
    const huge = pngWith(40_000, 40_000, Buffer.alloc(10));
    const [check] = await checkImages([{ name: "huge.png", data: huge }]);
    expect(check).toMatchObject({ width: 40_000, height: 40_000, error: "not checked: larger than 4000000 pixels" });
  });

  it("keeps the event loop turning while a large image is re-encoded", async () => {
    const spun = spin();
    const [check] = await checkImages([{ name: "noise.png", data: noisePng(1200, 1200) }]);
    const ticks = spun.stop();
    expect(check!.error).toBe("");
    // Re-encoding on this thread would have run from start to end between two turns of the loop.
    expect(ticks).toBeGreaterThan(20);
  });

  it("reports an image that outgrows the worker's heap, or its time, and checks the next one on a new worker", async () => {
    const jpg = Buffer.from(jpeg.encode({ data: Buffer.alloc(2000 * 2000 * 4, 0x80), width: 2000, height: 2000 }, 90).data);
    const heap = await checkImages([{ name: "wide.jpg", data: jpg }, { name: "after.png", data: smallPng() }], { workerHeapMb: 8 });
    expect(heap[0]!.error).toBe("not checked: decoding it took more than the image worker's 8 MB heap");
    expect(heap[1]).toMatchObject({ error: "" });

    const slow = await checkImages([{ name: "slow.png", data: noisePng(2000, 2000) }, { name: "after.png", data: smallPng() }], { perImageMs: 20 });
    expect(slow[0]!.error).toBe("not checked: re-encoding it took longer than 20 ms");
    expect(slow[1]).toMatchObject({ error: "" });
  });

  it("lists the images left when the zip's image time is used up", async () => {
    const files = [{ name: "a.png", data: noisePng(2000, 2000) }, { name: "b.png", data: smallPng() }];
    const checks = await checkImages(files, { totalMs: 50, perImageMs: 60_000 });
    expect(checks.map((c) => c.error)).toEqual(["not checked: the image check's 50 ms were used up", "not checked: the image check's 50 ms were used up"]);
  });

  it("gives a zip with a PNG bomb its report: the bomb listed as not checked, the other fields measured", async () => {
    const index = `<!DOCTYPE html><html><head><meta name="ad.size" content="width=300,height=250"></head><body><img src="bomb.png"><img src="logo.png"></body></html>`;
    const data = buildZip([
      { name: "index.html", data: index },
      { name: "bomb.png", data: BOMB },
      { name: "logo.png", data: pngWith(80, 40, Buffer.alloc(40 * (1 + 80 * 3), 7), 0) },
    ]);
    const render = async (bundle: Bundle): Promise<TagReport> =>
      create(TagReportSchema, { creativeRendered: true, dimensions: create(DimensionsSchema, { width: 300, height: 250 }), network: { responses: [{ url: `${ORIGIN}/${bundle.entry}`, resourceType: "document", status: 200 }] } });
    const job = create(ScanJobSchema, { jobId: "bomb", kind: ScanKind.ZIP, apiVersion: "v3", input: { case: "zip", value: { data } } });
    const report = await createZipAnalyzer({ render, bundleOrigin: ORIGIN }).analyze(job);
    expect(report.images.find((i) => i.name === "bomb.png")!.error).toMatch(/decompression bomb/);
    expect(report.images.find((i) => i.name === "logo.png")!.reencodedBytes).toBeGreaterThan(0n);
    const test = evaluateZip(report, 0).tests.find((t) => t.test === "image_optimization")!;
    expect(test.message).toMatch(/logo\.png.*1 image\(s\) not checked/);
  });
});

/** Counts turns of the event loop until stopped. */
function spin(): { stop(): number } {
  let ticks = 0;
  let running = true;
  const turn = () => {
    ticks++;
    if (running) setImmediate(turn);
  };
  setImmediate(turn);
  return {
    stop() {
      running = false;
      return ticks;
    },
  };
}
