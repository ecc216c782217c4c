import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { create } from "@bufbuild/protobuf";
import { AudioFileReportSchema, ImageFileReportSchema, TestOutcome, VideoFileReportSchema } from "@cva/contracts";
import { reportstore } from "@cva/contracts";
import { renderReportPage } from "../src/report-page/render.ts";
import { fillImageUrls } from "../src/scan/images.ts";
import {
  audioV3Schema, imageV3Schema, renderAudioV3, renderImageV3, renderVideoV3, videoV3Schema,
} from "../src/views/index.ts";

// The JSON views of the raw-file reports (issue 19 §2–4): exact names, the proto/JSON unit changes (container.duration
// s → ms; keyframe_interval_ms → keyframe_interval; frozen_frames_ms → frozen_frames), what was not measured left out
// and listed, and image URLs filled for every image of the new reports.

const ajv = new Ajv2020({ strict: false, allErrors: true });
function check(schema: object, doc: unknown) {
  const validate = ajv.compile(schema);
  const ok = validate(doc);
  expect(validate.errors ?? [], JSON.stringify(validate.errors)).toEqual([]);
  expect(ok).toBe(true);
}
const urls = <T>(r: T): T => {
  fillImageUrls(r, (id) => `https://edge.test/artifacts/${id}`);
  return r;
};
const img = (id: string, mimeType = "image/jpeg") => ({ id, bytes: 10n, mimeType, color: "#102030" });
const meta = (creativeType: number) => ({ apiVersion: "v3", cpu: "x", ram: "1 GB", creativeType, scanDurationSeconds: 1.234, serverLocation: "usa", timestamp: 1_763_726_400n });
const file = { name: "spot.mp4", sha256: "ab".repeat(32), mimeType: "video/mp4", declaredMimeType: "video/mp4", size: 1234n, url: "" };
const results = {
  passed: 1, failed: 0, reportUrl: "https://edge.test/r/tok",
  tests: [{ test: "loudness", name: "Loudness", dataType: "float", unit: "LUFS", expected: { case: "expectedString" as const, value: "-26#-22" }, expectedText: "between -26 and -22 LUFS", actual: -23.9, operator: "><", result: TestOutcome.PASSED, message: "ok" }],
};

function fullVideo() {
  return create(VideoFileReportSchema, {
    jobId: "j1", name: "Spring", meta: meta(4), scanResults: results, file, fileSize: 1234n, durationMs: 30_030n,
    fileInfo: {
      container: { format: "mp4", mimeType: "video/mp4", moovAtomPosition: "beginning", duration: 30.03, bitRate: 5_000_000n },
      video: {
        codec: "h264", profile: "High", width: 1920, height: 1080, dimensions: "1920x1080", definition: "FHD", aspectRatio: "16:9", rotation: 0,
        frameRate: 29.97, frameRateFraction: "30000/1001", frameRateMode: "constant", scanType: "interlaced", bitDepth: 10,
        chromaSubsampling: "4:2:2", pixFmt: "yuv422p10le", colorPrimaries: "bt2020", colorTransfer: "smpte2084", colorSpace: "bt2020nc", hdr: true,
        bitRate: 4_800_000n, bitRateMode: "VBR", keyframeIntervalMs: 2002n, letterboxing: true, pillarboxing: false, bars: { top: 132, bottom: 132 },
      },
      audio: {
        codec: "aac", profile: "LC", channels: 6, channelLayout: "5.1", sampleRate: 48000, bitRate: 192_000n, bitDepth: 0, clipping: 3n,
        loudness: { lufs: -23.1, lra: 4.2, truePeak: -1.5 },
      },
      content: { leadingBlackMs: 1000n, trailingBlackMs: 0n, leadingSilenceMs: 1000n, trailingSilenceMs: 40n, frozenFramesMs: 600n },
    },
    filmStrip: img("strip"), filmStripTimesMs: [0n, 2000n, 4000n], poster: img("poster"), audioWave: img("wave", "image/png"), screenshot: { highres: img("hi"), thumbnail: img("th") },
  });
}

describe("raw-file views", () => {
  it("video: every documented field with issue 19's names and units, schema-valid, URLs filled", () => {
    const doc = JSON.parse(renderVideoV3(urls(fullVideo())));
    check(videoV3Schema, doc);
    expect(Object.keys(doc).sort()).toEqual(
      ["accessibility", "audio_wave", "duration", "error", "file", "file_info", "file_size", "film_strip", "film_strip_times", "job_id", "meta", "name", "not_measured", "poster", "scan_results", "screenshot"],
    );
    expect(doc.meta).toMatchObject({ creative_type: "video", api_version: "v3", scan_duration: "1.23" });
    expect(doc.file).toEqual({ name: "spot.mp4", sha256: "ab".repeat(32), mime_type: "video/mp4", declared_mime_type: "video/mp4", size: 1234, url: "" });
    expect(doc.duration).toBe(30_030);
    // Seconds in the proto, milliseconds in the JSON.
    expect(doc.file_info.container).toEqual({ format: "mp4", mime_type: "video/mp4", duration: 30_030, bit_rate: 5_000_000, moov_atom_position: "beginning" });
    expect(doc.file_info.video).toMatchObject({
      frame_rate: 29.97, frame_rate_fraction: "30000/1001", frame_rate_mode: "constant", scan_type: "interlaced", bit_depth: 10,
      chroma_subsampling: "4:2:2", color_primaries: "bt2020", color_transfer: "smpte2084", color_space: "bt2020nc", hdr: true,
      keyframe_interval: 2002, letterboxing: true, pillarboxing: false, bars: { top: 132, bottom: 132, left: 0, right: 0 }, aspect_ratio: "16:9",
    });
    expect(doc.file_info.audio).toEqual({
      codec: "aac", profile: "LC", channels: 6, channel_layout: "5.1", sample_rate: 48000, bit_rate: 192_000, bit_depth: 0,
      loudness: { lufs: -23.1, lra: 4.2 }, true_peak: -1.5, clipping: 3,
    });
    expect(doc.file_info.content).toEqual({ leading_black_ms: 1000, trailing_black_ms: 0, leading_silence_ms: 1000, trailing_silence_ms: 40, frozen_frames: 600 });
    expect(doc.poster).toEqual({ bytes: 10, mime_type: "image/jpeg", url: "https://edge.test/artifacts/poster" });
    expect(doc.film_strip.url).toBe("https://edge.test/artifacts/strip");
    expect(doc.film_strip_times).toEqual([0, 2000, 4000]);
    expect(doc.audio_wave.url).toBe("https://edge.test/artifacts/wave");
    expect(doc.screenshot.highres).toEqual({ bytes: 10, color: "#102030", mime_type: "image/jpeg", url: "https://edge.test/artifacts/hi" });
    expect(doc.scan_results).toMatchObject({ passed: 1, failed: 0, report_url: "https://edge.test/r/tok" });
    expect(doc.scan_results.tests.loudness).toMatchObject({ test: "loudness", expected: "-26#-22", actual: -23.9, result: "passed" });
  });

  it("video: what was not measured is absent (scalars) or empty (objects) and listed; true_peak goes with loudness", () => {
    const r = fullVideo();
    r.notMeasured = [
      "file_info.video.scan_type", "file_info.video.keyframe_interval", "file_info.video.bars", "file_info.audio.loudness",
      "file_info.content.frozen_frames", "poster", "screenshot",
    ];
    r.analysisError = "video analysis stopped: the scan's deadline was reached";
    const doc = JSON.parse(renderVideoV3(urls(r)));
    check(videoV3Schema, doc);
    expect("scan_type" in doc.file_info.video).toBe(false);
    expect("keyframe_interval" in doc.file_info.video).toBe(false);
    expect(doc.file_info.video.bars).toEqual({});
    expect(doc.file_info.audio.loudness).toEqual({});
    expect("true_peak" in doc.file_info.audio).toBe(false);
    expect("frozen_frames" in doc.file_info.content).toBe(false);
    expect(doc.poster).toEqual({ bytes: 0, mime_type: "", url: "" });
    expect(doc.not_measured).toEqual(r.notMeasured);
    expect(doc.error).toBe("video analysis stopped: the scan's deadline was reached");
  });

  it("video: a silent video has audio {} and no silence fields (listed by the prober)", () => {
    const r = fullVideo();
    r.fileInfo!.audio = undefined;
    r.audioWave = undefined;
    r.notMeasured = ["file_info.content.leading_silence_ms", "file_info.content.trailing_silence_ms"];
    const doc = JSON.parse(renderVideoV3(r));
    check(videoV3Schema, doc);
    expect(doc.file_info.audio).toEqual({});
    expect(doc.file_info.content).toEqual({ leading_black_ms: 1000, trailing_black_ms: 0, frozen_frames: 600 });
    expect(doc.audio_wave).toEqual({ bytes: 0, mime_type: "", url: "" });
  });

  it("audio: container, audio (loudness, true peak, clipping), silence in file_info.content, duration ms", () => {
    const r = urls(create(AudioFileReportSchema, {
      jobId: "a1", name: "Radio", meta: meta(6), file: { ...file, name: "spot.wav", mimeType: "audio/wav" }, fileSize: 288_044n, durationMs: 1500n,
      fileInfo: {
        container: { format: "wav", mimeType: "audio/wav", duration: 1.5, bitRate: 705_600n },
        audio: { codec: "pcm_s16le", channels: 1, channelLayout: "mono", sampleRate: 44100, bitRate: 705_600n, bitDepth: 16, clipping: 0n, loudness: { lufs: -10.2, lra: 0, truePeak: -0.1 } },
        content: { leadingSilenceMs: 1000n, trailingSilenceMs: 0n },
      },
      audioWave: img("wave", "image/png"),
    }));
    const doc = JSON.parse(renderAudioV3(r));
    check(audioV3Schema, doc);
    expect(Object.keys(doc).sort()).toEqual(["audio_wave", "duration", "error", "file", "file_info", "file_size", "job_id", "meta", "name", "not_measured", "scan_results"]);
    expect(Object.keys(doc.file_info).sort()).toEqual(["audio", "container", "content"]);
    expect(doc.meta.creative_type).toBe("audio");
    expect(doc.duration).toBe(1500);
    expect(doc.file_info.container.duration).toBe(1500);
    expect(doc.file_info.audio).toMatchObject({ sample_rate: 44100, bit_depth: 16, clipping: 0, true_peak: -0.1, loudness: { lufs: -10.2, lra: 0 } });
    expect(doc.file_info.content).toEqual({ leading_silence_ms: 1000, trailing_silence_ms: 0 });
    expect(doc.audio_wave.url).toBe("https://edge.test/artifacts/wave");
  });

  it("image: every field of issue 19 §3, GPS, EXIF sorted, not_measured named by JSON path", () => {
    const r = urls(create(ImageFileReportSchema, {
      jobId: "i1", name: "Banner", meta: meta(5), file: { ...file, name: "a.gif", mimeType: "image/gif" },
      format: "gif", mimeType: "image/gif", fileSize: 5000n, width: 300, height: 250, aspectRatio: "6:5", bitDepth: 8, hasAlpha: true,
      colorSpace: "srgb", iccProfile: "", animated: true, frameCount: 3, loopCount: 2, animationDurationMs: 1200n, hasBorder: false,
      optimized: false, potentialSavingBytes: 600n, iabSize: "300x250",
      metadata: { exif: { Model: "Snapper", Make: "Acme" }, gps: { present: true, latitude: -33.8568, longitude: 151.2153 } },
      screenshot: img("shot", "image/png"),
    }));
    const doc = JSON.parse(renderImageV3(r));
    check(imageV3Schema, doc);
    expect(doc).toMatchObject({
      format: "gif", mime_type: "image/gif", file_size: 5000, width: 300, height: 250, aspect_ratio: "6:5", bit_depth: 8, has_alpha: true,
      color_space: "srgb", icc_profile: "", animated: true, frame_count: 3, loop_count: 2, animation_duration: 1200, has_border: false,
      optimized: false, potential_saving_bytes: 600, iab_size: "300x250", not_measured: [], error: "",
    });
    expect(doc.meta.creative_type).toBe("image");
    expect(Object.keys(doc.metadata.exif)).toEqual(["Make", "Model"]);
    expect(doc.metadata.gps).toEqual({ present: true, latitude: -33.8568, longitude: 151.2153 });
    expect(doc.screenshot).toEqual({ bytes: 10, color: "#102030", mime_type: "image/png", url: "https://edge.test/artifacts/shot" });

    // An AVIF sequence: its timing is not measured; the proto path animation_duration_ms is listed as animation_duration.
    r.notMeasured = ["frame_count", "loop_count", "animation_duration_ms", "optimized", "potential_saving_bytes"];
    const avif = JSON.parse(renderImageV3(r));
    check(imageV3Schema, avif);
    for (const k of ["frame_count", "loop_count", "animation_duration", "optimized", "potential_saving_bytes"]) expect(k in avif).toBe(false);
    expect(avif.not_measured).toEqual(["frame_count", "loop_count", "animation_duration", "optimized", "potential_saving_bytes"]);
  });

  it("empty internal reports still produce schema-valid documents", () => {
    check(videoV3Schema, JSON.parse(renderVideoV3(create(VideoFileReportSchema))));
    check(audioV3Schema, JSON.parse(renderAudioV3(create(AudioFileReportSchema))));
    check(imageV3Schema, JSON.parse(renderImageV3(create(ImageFileReportSchema))));
  });
});

describe("raw-file views in OpenAPI", () => {
  it("every field of the three reports has its meaning (and unit) in the schema, outside the shapes shared with the other reports", () => {
    const shared = new Set(["meta", "film_strip", "poster", "audio_wave", "screenshot"]);
    const missing: string[] = [];
    const walk = (s: Record<string, unknown>, path: string, top: boolean): void => {
      if (Array.isArray(s.anyOf)) return walk(s.anyOf[0] as Record<string, unknown>, path, false);
      if (s.type === "object" && s.properties) {
        for (const [k, v] of Object.entries(s.properties as Record<string, Record<string, unknown>>)) {
          if (top && shared.has(k)) continue;
          walk(v, `${path}.${k}`, false);
        }
        return;
      }
      if (!s.description) missing.push(path);
    };
    walk(videoV3Schema, "video", true);
    walk(imageV3Schema, "image", true);
    walk(audioV3Schema, "audio", true);
    expect(missing).toEqual([]);
  });
});

describe("raw-file report pages (rendered from the views' JSON)", () => {
  const BASE = "https://edge.test";
  const page = (kind: string, json: string) =>
    renderReportPage(create(reportstore.StoredReportSchema, { jobId: "j1", reportKind: kind, json: Buffer.from(json) }), { publicBaseUrl: BASE }).replace(/\u00a0/g, " ");
  const row = (k: string, v: string) => `<th scope="row">${k}</th><td>${v}</td>`;

  it("video: the file, poster, film strip, waveform and loudness; durations shown in ms units, not as seconds", () => {
    const html = page("video_v3", renderVideoV3(urls(fullVideo())));
    expect(html).toContain("<title>Video report — Spring</title>");
    expect(html).toContain(`<img class="poster" src="${BASE}/artifacts/poster"`);
    expect(html).toContain(`<img class="strip" src="${BASE}/artifacts/strip"`);
    // Each tile's time under it, from film_strip_times.
    expect(html).toContain(`<ol class="strip-times"><li>0 ms</li><li>2 s</li><li>4 s</li></ol>`);
    expect(html).toContain(`<img class="wave" src="${BASE}/artifacts/wave"`);
    expect(html).toContain("-23.1 LUFS integrated, range 4.2 LU");
    expect(html).toContain(row("Duration", "30 s"));
    // Once: the container's duration is the same figure. The unit is in the value, not repeated in the label.
    expect(html.split(row("Duration", "30 s")).length - 1).toBe(1);
    expect(html).not.toMatch(/<th scope="row">[^<]* ms<\/th>/);
    expect(html).toContain(row("Keyframe interval", "2 s"));
    expect(html).toContain(row("Frozen frames", "600 ms"));
    expect(html).toContain(row("Leading black", "1 s"));
    expect(html).toContain(row("True peak", "-1.5 dBTP"));
    expect(html).toContain(row("Type (from its bytes)", "video/mp4"));
    expect(html).not.toContain("30,030");
    expect(html).not.toContain("Other fields");
  });

  it("audio: the file, waveform, silence at the ends and clipping", () => {
    const r = urls(create(AudioFileReportSchema, {
      jobId: "a1", name: "Radio", durationMs: 1500n, fileSize: 10n,
      fileInfo: {
        container: { format: "wav", mimeType: "audio/wav", duration: 1.5 },
        audio: { codec: "pcm_s16le", channels: 1, sampleRate: 44100, clipping: 68000n, loudness: { lufs: -10, lra: 0, truePeak: 0 } },
        content: { leadingSilenceMs: 1000n, trailingSilenceMs: 0n },
      },
      audioWave: img("wave", "image/png"),
    }));
    const html = page("audio_v3", renderAudioV3(r));
    expect(html).toContain("<title>Audio report — Radio</title>");
    expect(html).toContain(`<img class="wave" src="${BASE}/artifacts/wave"`);
    expect(html).toContain(row("Leading silence", "1 s"));
    expect(html).toContain(row("Clipping", "68,000 samples at full scale"));
    expect(html).toContain(row("Sample rate", "44.1 kHz"));
    expect(html).not.toContain("Other fields");
  });
});
