import type { AudioInfo, ContainerInfo, CreativeFile, FileInfo, Image, MediaContent, ScanResults, VideoInfo } from "@cva/contracts";
import { arr, bool, int, map, num, obj, orEmpty, str, testResultSchema, testResultView, type JsonSchema } from "./shared.ts";

// What the three raw-file views (scanVideo, scanImage, scanAudio) share: the file as received, scan_results keyed by
// test id, and — for video and audio — the media info objects. Units differ from the VAST media file view on purpose,
// as issue 19 names them: durations are milliseconds here (the proto's container.duration is seconds), the keyframe
// interval and the longest freeze are `keyframe_interval` and `frozen_frames` (proto *_ms), both ms.

const NOT_MEASURED = "; absent when not measured (then listed in not_measured)";
export const notMeasuredNote = NOT_MEASURED;

const n = (v: bigint | number | undefined): number => (v === undefined ? 0 : Number(v));

// ---- file
export const creativeFileSchema = obj(
  {
    name: str("the client's name for the file (the upload's file name, or the URL's last path segment); for reports only"),
    sha256: str("SHA-256 of the bytes scanned, lowercase hex"),
    mime_type: str("what the file is, from its own bytes (never from the name or the declared type)"),
    declared_mime_type: str("the MIME type the client declared (multipart part Content-Type, or the URL's Content-Type); empty when none"),
    size: int("bytes"),
    url: str("the URL the file was fetched from, as given; empty for an upload"),
  },
  { description: "the file as received" },
);
export const creativeFileView = (f: CreativeFile | undefined) => ({
  name: f?.name ?? "",
  sha256: f?.sha256 ?? "",
  mime_type: f?.mimeType ?? "",
  declared_mime_type: f?.declaredMimeType ?? "",
  size: n(f?.size),
  url: f?.url ?? "",
});

// ---- scan_results (the tag report's shape: a flat map by test id)
export const fileScanResultsSchema = obj({
  failed: int("tests failed"),
  passed: int("tests passed"),
  report_url: str("shareable report page"),
  tests: map(testResultSchema(true), "test results keyed by test id"),
});
export function fileScanResultsView(r: ScanResults | undefined) {
  const tests: Record<string, ReturnType<typeof testResultView>> = {};
  for (const t of r?.tests ?? []) tests[t.test] = testResultView(t, true);
  return { failed: r?.failed ?? 0, passed: r?.passed ?? 0, report_url: r?.reportUrl ?? "", tests };
}

// ---- images with their dominant colour (the image report's screenshot)
export const colorImageSchema = obj(
  { bytes: int("length of the image body; 0 when there is no image"), color: str("dominant colour, #rrggbb"), mime_type: str(), url: str("empty when there is no image") },
  { description: "always present; bytes 0 and url empty when there is no image" },
);
export const colorImageView = (i: Image | undefined) =>
  i && i.id ? { bytes: n(i.bytes), color: i.color, mime_type: i.mimeType, url: i.url } : { bytes: 0, color: "", mime_type: "", url: "" };

// ---- media info objects
export const containerSchema = obj(
  {
    format: str("short container name from the file's own brand: mp4, mov, webm, mkv, mp3, wav, ogg, …"),
    mime_type: str("the container's MIME type, from the file's own bytes (video/mp4, audio/mpeg, …)"),
    duration: int("milliseconds (the container's; the stream's when the container states none)"),
    bit_rate: int("bits per second, the whole file"),
    moov_atom_position: str("MP4/MOV: beginning (faststart: plays while downloading) or end; empty for other containers"),
  },
  { description: "the container" },
);
export const containerView = (c: ContainerInfo) => ({
  format: c.format,
  mime_type: c.mimeType,
  duration: Math.round(c.duration * 1000),
  bit_rate: n(c.bitRate),
  moov_atom_position: c.moovAtomPosition,
});

export const audioSchema = obj(
  {
    codec: str("ffmpeg's decoder name: aac, mp3, opus, pcm_s16le, …"),
    profile: str("e.g. LC, HE-AAC; empty when the codec has none"),
    channels: int("audio channels (1 mono, 2 stereo, 6 for 5.1)"),
    channel_layout: str("mono, stereo, 5.1, …"),
    sample_rate: int("Hz"),
    bit_rate: int(`bits per second${NOT_MEASURED}`),
    bit_depth: int("bits per sample as stored (PCM and lossless codecs), else the decoder's sample size; 0 for a lossy codec that has none"),
    loudness: orEmpty(
      obj({ lufs: num("integrated loudness, LUFS (EBU R128 / ITU-R BS.1770; = LKFS)"), lra: num("loudness range, LU") }),
      "EBU R128 over the whole programme; {} when not measured (then file_info.audio.loudness is listed in not_measured)",
    ),
    true_peak: num(`true peak, dBTP (ITU-R BS.1770 oversampled peak, the whole programme)${NOT_MEASURED.replace("listed", "file_info.audio.loudness listed")}`),
    clipping: int(`samples at digital full scale (|sample| ≥ 1.0 after decoding), every channel, the whole stream; 0 = none${NOT_MEASURED}`),
  },
  { optional: ["bit_rate", "true_peak", "clipping"] },
);
export function audioView(a: AudioInfo) {
  return {
    codec: a.codec,
    profile: a.profile,
    channels: a.channels,
    channel_layout: a.channelLayout,
    sample_rate: a.sampleRate,
    bit_rate: n(a.bitRate),
    bit_depth: a.bitDepth,
    // {} unless measured: an unset message is never shown as {0, 0}.
    loudness: a.loudness ? { lufs: a.loudness.lufs, lra: a.loudness.lra } : {},
    ...(a.loudness ? { true_peak: a.loudness.truePeak } : {}),
    clipping: n(a.clipping),
  };
}

const barsSchema = obj(
  { top: int("display pixels"), bottom: int("display pixels"), left: int("display pixels"), right: int("display pixels") },
  { description: "display pixels (median over the judged frames); all 0 when there are no bars" },
);
export const videoSchema = obj(
  {
    codec: str("ffmpeg's decoder name: h264, hevc, vp9, av1, prores, …"),
    profile: str("e.g. High, Main 10"),
    width: int("display pixels (rotation applied)"),
    height: int("display pixels (rotation applied)"),
    dimensions: str("WIDTHxHEIGHT"),
    definition: str("SD, HD, FHD, QHD, 4K or 8K (16:9-equivalent lines)"),
    aspect_ratio: str("display aspect ratio, reduced and snapped to a common one within 1 %, e.g. 16:9"),
    rotation: int("degrees, from the display matrix"),
    frame_rate: num("frames per second, 3 decimals (30000/1001 is 29.97)"),
    frame_rate_fraction: str("the nominal frame rate as the stream states it, e.g. 30000/1001"),
    frame_rate_mode: str(`constant or variable, from the packet timestamps (every frame duration within 1 % of the median: constant)${NOT_MEASURED}`),
    scan_type: str(`progressive or interlaced, from the decoded frames (ffmpeg idet), not only the header${NOT_MEASURED}`),
    bit_depth: int("bits per sample of the pixel format (8, 10, 12)"),
    chroma_subsampling: str("4:2:0, 4:2:2, 4:4:4, 4:1:1 or 4:4:0; empty for RGB, gray or unknown"),
    pix_fmt: str("ffmpeg pixel format, e.g. yuv420p, yuv422p10le"),
    color_primaries: str("as tagged (bt709, bt2020, smpte170m, …); empty when the stream leaves it unspecified"),
    color_transfer: str("transfer characteristics as tagged (bt709, smpte2084 = PQ, arib-std-b67 = HLG, …); empty when unspecified"),
    color_space: str("matrix coefficients as tagged (bt709, bt2020nc, …); empty when unspecified"),
    hdr: bool("the transfer is a high-dynamic-range one: PQ (smpte2084) or HLG (arib-std-b67)"),
    bit_rate: int(`bits per second of the video stream${NOT_MEASURED}`),
    bit_rate_mode: str("CBR or VBR (every whole 1 s window within ±15 % of the mean: CBR); empty when too short to tell"),
    keyframe_interval: int(`milliseconds: the longest gap between consecutive keyframes (the last keyframe to the end counts too)${NOT_MEASURED}`),
    letterboxing: bool(`black bars above and below the picture, consistently${NOT_MEASURED}`),
    pillarboxing: bool(`black bars left and right of the picture, consistently${NOT_MEASURED}`),
    bars: orEmpty(barsSchema, "the bars' sizes; {} when not measured (then file_info.video.bars is listed in not_measured)"),
  },
  { optional: ["frame_rate_mode", "scan_type", "bit_rate", "keyframe_interval", "letterboxing", "pillarboxing"] },
);
export function videoView(v: VideoInfo) {
  return {
    codec: v.codec,
    profile: v.profile,
    width: v.width,
    height: v.height,
    dimensions: v.dimensions,
    definition: v.definition,
    aspect_ratio: v.aspectRatio,
    rotation: v.rotation,
    frame_rate: v.frameRate,
    frame_rate_fraction: v.frameRateFraction,
    frame_rate_mode: v.frameRateMode,
    scan_type: v.scanType,
    bit_depth: v.bitDepth,
    chroma_subsampling: v.chromaSubsampling,
    pix_fmt: v.pixFmt,
    color_primaries: v.colorPrimaries,
    color_transfer: v.colorTransfer,
    color_space: v.colorSpace,
    hdr: v.hdr,
    bit_rate: n(v.bitRate),
    bit_rate_mode: v.bitRateMode,
    keyframe_interval: n(v.keyframeIntervalMs),
    letterboxing: v.letterboxing,
    pillarboxing: v.pillarboxing,
    bars: { top: v.bars?.top ?? 0, bottom: v.bars?.bottom ?? 0, left: v.bars?.left ?? 0, right: v.bars?.right ?? 0 },
  };
}

/** The content object of a video (black, silence, freezes) or of an audio file (silence only). */
export function contentSchema(kind: "video" | "audio"): JsonSchema {
  const silence = {
    leading_silence_ms: int(`milliseconds of silence from the first sample on (every channel under -60 dBFS, runs of at least 50 ms); 0 when sound starts at once${NOT_MEASURED}`),
    trailing_silence_ms: int(`milliseconds of silence up to the last sample; 0 when sound lasts to the end${NOT_MEASURED}`),
  };
  if (kind === "audio") return obj(silence, { optional: Object.keys(silence), description: "what the programme does at its ends" });
  const props = {
    leading_black_ms: int(`milliseconds of black picture from the first frame on (a black slate: 98 % of the pixels under 10 % of the luma range); 0 when the first frame is not black${NOT_MEASURED}`),
    trailing_black_ms: int(`milliseconds of black picture up to the end of the last frame; 0 when the last frame is not black${NOT_MEASURED}`),
    ...silence,
    frozen_frames: int(`milliseconds: the longest run of unchanged picture that is not black (frame differences under -50 dB, runs of at least 0.5 s); 0 = none${NOT_MEASURED}`),
  };
  return obj(props, { optional: Object.keys(props), description: "what the programme does at its ends and in between (a silent video: no silence fields)" });
}
export function contentView(c: MediaContent | undefined, kind: "video" | "audio") {
  const silence = { leading_silence_ms: n(c?.leadingSilenceMs), trailing_silence_ms: n(c?.trailingSilenceMs) };
  if (kind === "audio") return silence;
  return {
    leading_black_ms: n(c?.leadingBlackMs),
    trailing_black_ms: n(c?.trailingBlackMs),
    ...silence,
    frozen_frames: n(c?.frozenFramesMs),
  };
}

/**
 * file_info of a raw video or audio file. A silent video's audio is {}; the prober lists its silence fields in
 * not_measured, so the view leaves them out (applyNotMeasured).
 */
export function fileInfoView(fi: FileInfo | undefined, kind: "video" | "audio") {
  const content = contentView(fi?.content, kind);
  return {
    container: fi?.container ? containerView(fi.container) : {},
    ...(kind === "video" ? { video: fi?.video ? videoView(fi.video) : {} } : {}),
    audio: fi?.audio ? audioView(fi.audio) : {},
    content,
  };
}

/** Paths of not_measured whose removal drags others with it: true_peak goes with loudness. */
export function withDependents(paths: readonly string[]): string[] {
  const out = [...paths];
  if (paths.includes("file_info.audio.loudness")) out.push("file_info.audio.true_peak");
  return out;
}

export const notMeasuredSchema = (what: string) => arr(str(), `what of this ${what} was not measured, as JSON paths: scalars listed here are absent, objects listed here are present but empty`);
export const errorSchema = (what: string) => str(`why part of the measurement failed although the file is ${what} (a pass failed or ran out of time); empty when everything was measured`);
