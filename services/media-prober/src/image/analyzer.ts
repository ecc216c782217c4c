import { open } from "node:fs/promises";
import type { ArtifactSink } from "@cva/platform";
import { aspectRatio } from "../video-info.ts";
import { createDecodeProcesses, type DecodeProcesses, type DecodeProcessOptions } from "./decode-process.ts";
import { ImageInputError } from "./errors.ts";
import { IMAGE_MIME, sniffImage } from "./format.ts";
import { checkHeader, readHeader } from "./header.ts";
import { iabSize } from "./iab-size.ts";
import { SAVING_THRESHOLD } from "./optimize.ts";
import { IMAGE_FIELD, type ImageFileFields } from "./report.ts";

/**
 * scanImage's measurement: `createImageAnalyzer({ artifacts, limits }).analyze(filePath | bytes)` → the measured
 * fields of an ImageFileReport. In order, each step bounded before the next may cost more:
 * 1. size: empty or over `maxBytes` → refused before reading it;
 * 2. what it is, from its bytes (format.ts): not one of the six image formats → refused, named;
 * 3. the header's claims (header.ts), read without decoding: canvas over `maxPixels` or frames over `maxFrames` →
 *    refused (decompression bombs); animation timing from the frame headers, as browsers play it;
 * 4. decoding (measure.ts) in the image worker process under OS limits (decode-process.ts): metadata, the first
 *    frame as displayed (border, colour, screenshot), EXIF/GPS, ICC, the lossless re-encode;
 * 5. the screenshot is stored in the artifact sink.
 * Refusals and decode failures throw ImageInputError (payload_error, client-safe message); anything else that throws
 * is the service's failure (processing_error).
 */
export interface ImageLimits {
  /** Largest file, bytes (issue 19: images up to 20 MB). */
  maxBytes: number;
  /** Largest SVG, bytes: text that librsvg parses whole. */
  maxSvgBytes: number;
  /** Largest canvas decoded, pixels per frame. */
  maxPixels: number;
  /** Most frames an animated image may have. */
  maxFrames: number;
  /** The screenshot and the border/colour raster hold at most this many pixels. */
  renderMaxPixels: number;
  /** Largest PNG image data (raw scanlines) inflated for the lossless re-encode, bytes. */
  maxReencodeRawBytes: number;
}

export const DEFAULT_IMAGE_LIMITS: ImageLimits = {
  maxBytes: 20 * 1024 * 1024,
  maxSvgBytes: 5 * 1024 * 1024,
  // 8K UHD (7680x4320) is 33 M pixels; a larger ad image is not one any page shows at its size.
  maxPixels: 40_000_000,
  // A 15 s animation (the IAB's cap) at 60 fps is 900 frames.
  maxFrames: 2_000,
  // The tag scanner's screenshot budget (its measure.ts MAX_SHOT_PIXELS).
  renderMaxPixels: 8 * 1024 * 1024,
  // 8 M pixels of 8-bit RGBA (4K UHD RGB is 25 MB): inflate, re-filter and a level-9 deflate of it take seconds on
  // a loaded 2-core machine; a larger PNG's weight is not measured rather than the scan run long.
  maxReencodeRawBytes: 32 * 1024 * 1024,
};

export interface ImageAnalyzerDeps {
  artifacts: ArtifactSink;
  limits?: Partial<ImageLimits>;
  /** The worker processes' OS limits and count (decode-process.ts). */
  decode?: Partial<DecodeProcessOptions>;
}

export interface AnalyzeOptions {
  signal?: AbortSignal;
  /** The scan's deadline, epoch ms: decoding stops in time to store the screenshot and answer. */
  deadline?: number;
  /** Filled with the ms of each step (`decode`: the worker process incl. its queue; `store`: the screenshot's put), for the job's log line. */
  phaseMs?: Record<string, number>;
}

export interface ImageAnalyzer {
  analyze(input: string | Uint8Array, opts?: AnalyzeOptions): Promise<ImageFileFields>;
  /** Starts the image worker processes (call at service start). */
  warmUp(): Promise<void>;
  /** Process ids of the image worker processes (tests, diagnostics). */
  workerPids(): number[];
  close(): Promise<void>;
}

/** Time kept after decoding to store the screenshot and reply. */
const REPLY_RESERVE_MS = 1_000;

export function createImageAnalyzer(deps: ImageAnalyzerDeps): ImageAnalyzer {
  const limits: ImageLimits = { ...DEFAULT_IMAGE_LIMITS, ...deps.limits };
  const decoder: DecodeProcesses = createDecodeProcesses(deps.decode);
  const mb = (n: number) => `${Math.round((n / 1024 / 1024) * 10) / 10} MB`;

  async function readInput(input: string | Uint8Array): Promise<Uint8Array> {
    if (typeof input !== "string") {
      if (input.byteLength > limits.maxBytes) throw new ImageInputError(`the image is ${input.byteLength} bytes, over the limit of ${limits.maxBytes} bytes (${mb(limits.maxBytes)})`);
      return input;
    }
    const fh = await open(input, "r");
    try {
      const { size } = await fh.stat();
      if (size > limits.maxBytes) throw new ImageInputError(`the image is ${size} bytes, over the limit of ${limits.maxBytes} bytes (${mb(limits.maxBytes)})`);
      const buf = Buffer.alloc(size);
      let at = 0;
      while (at < size) {
        const { bytesRead } = await fh.read(buf, at, size - at, at);
        if (bytesRead === 0) break;
        at += bytesRead;
      }
      return new Uint8Array(buf.buffer, buf.byteOffset, at);
    } finally {
      await fh.close();
    }
  }

  return {
    async analyze(input, opts = {}) {
      const bytes = await readInput(input);
      const sniff = sniffImage(bytes);
      if (!sniff.ok) throw new ImageInputError(sniff.message);
      const format = sniff.format;
      if (format === "svg" && bytes.length > limits.maxSvgBytes) {
        throw new ImageInputError(`the SVG is ${bytes.length} bytes, over the SVG limit of ${limits.maxSvgBytes} bytes (${mb(limits.maxSvgBytes)})`);
      }
      const header = readHeader(bytes, format);
      checkHeader(header, format, limits);

      const decodeStart = performance.now();
      const m = await decoder.measure(
        {
          bytes,
          format,
          svgWidth: header.svg?.width ?? 0,
          svgHeight: header.svg?.height ?? 0,
          headerBitDepth: header.bitDepth,
          limits: { maxPixels: limits.maxPixels, renderMaxPixels: limits.renderMaxPixels, maxRawBytes: limits.maxReencodeRawBytes },
        },
        { signal: opts.signal, deadline: opts.deadline !== undefined ? opts.deadline - REPLY_RESERVE_MS : undefined },
      );

      if (opts.phaseMs) opts.phaseMs.decode = Math.round(performance.now() - decodeStart);
      const notMeasured: string[] = [];
      let analysisError = "";
      if (m.width === 0 || m.height === 0) notMeasured.push(IMAGE_FIELD.width, IMAGE_FIELD.height, IMAGE_FIELD.aspectRatio, IMAGE_FIELD.iabSize);
      if (m.bitDepth === 0) notMeasured.push(IMAGE_FIELD.bitDepth);

      // Animation: the header readers' timing (browser rules); an AVIF sequence is animated but not timed here.
      const a = header.animation;
      let animated = false, frameCount = 1, loopCount = 1, duration = 0n;
      if (a) {
        animated = true;
        frameCount = a.frames;
        loopCount = a.plays;
        duration = a.plays === 0 ? -1n : BigInt(a.durationMs) * BigInt(a.plays);
      } else if (header.avifSequence) {
        animated = true;
        frameCount = 0;
        loopCount = 0;
        notMeasured.push(IMAGE_FIELD.frameCount, IMAGE_FIELD.loopCount, IMAGE_FIELD.animationDuration);
      }

      // Placeholders (false, 0) when not measured: the field is then listed in not_measured.
      let optimized = false;
      let saving = 0n;
      if (m.reencodedBytes !== undefined) {
        const s = Math.max(0, bytes.length - m.reencodedBytes);
        saving = BigInt(s);
        optimized = s <= SAVING_THRESHOLD * bytes.length;
      } else {
        notMeasured.push(IMAGE_FIELD.optimized, IMAGE_FIELD.potentialSaving);
        if (format !== "avif") analysisError = m.reencodeError ?? "";
      }

      if (opts.signal?.aborted) throw opts.signal.reason;
      const storeStart = performance.now();
      const shotId = await deps.artifacts.put(m.screenshot.data, m.screenshot.mimeType);
      if (opts.phaseMs) opts.phaseMs.store = Math.round(performance.now() - storeStart);

      return {
        format,
        mimeType: IMAGE_MIME[format],
        fileSize: BigInt(bytes.length),
        width: m.width,
        height: m.height,
        aspectRatio: aspectRatio(m.width, m.height),
        bitDepth: m.bitDepth,
        hasAlpha: m.hasAlpha,
        colorSpace: m.colorSpace,
        iccProfile: m.iccProfile,
        animated,
        frameCount,
        loopCount,
        animationDurationMs: duration,
        hasBorder: m.hasBorder,
        optimized,
        potentialSavingBytes: saving,
        iabSize: iabSize(m.width, m.height),
        metadata: m.metadata,
        screenshot: { id: shotId, bytes: BigInt(m.screenshot.data.byteLength), mimeType: m.screenshot.mimeType, color: m.screenshot.color, url: "" },
        notMeasured,
        analysisError,
      };
    },
    warmUp: () => decoder.warmUp(),
    workerPids: () => decoder.pids(),
    close: () => decoder.close(),
  };
}
