import { create } from "@bufbuild/protobuf";
import { MediaAccessibilitySchema, MediaTrackSchema, type MediaAccessibility, type MediaTrack } from "@cva/contracts";
import { runTool, type ToolOptions } from "./exec.ts";
import type { ProbeStream } from "./ffprobe.ts";

/*
 * Captions and audio description carried in a media file (issue 25 §4), for the VAST media probe (prober.ts) and the
 * raw video file probe (file-prober.ts):
 *  - subtitle streams come from ffprobe's description, which both probes already have (nothing more is read);
 *  - CEA-608/708 captions travel inside the video's pictures (ATSC A/53 user data in H.264/HEVC SEI, MPEG-2 user
 *    data), so no stream describes them: the decoder flags them when it meets them. ffprobe's `closed_captions` is
 *    that flag, and it is only set once frames were decoded, so `probeVideoCaptions` decodes the first
 *    CC_PROBE_FRAMES frames of the video stream (broadcast and caption-authoring tools write cc_data into every
 *    picture, padding included, so captions that exist are in the first frames). About 0.2 s of CPU for 1080p H.264.
 *  - audio description is what the file declares: a disposition (DVB's audio_type 3 and the MP4/Matroska flags
 *    become ffmpeg's `visual_impaired` / `descriptions`) or a title that names it. Nothing is listened to.
 */

/**
 * Why a VAST media file other than the flagged rendition has no flash verdict. Flashes need every frame decoded: the
 * VAST analyzer asks for that on one rendition per Linear creative (MediaInput.analyze_flashes; flash-pass.ts), the
 * smallest decodable progressive one, since a flash is the same on every rendition of the same creative.
 */
export const VAST_FLASHES_NOT_MEASURED =
  "not analysed on this rendition: flashes are analysed on one media file per Linear creative, its smallest decodable progressive rendition (a flash is the same on every rendition); see that media file's accessibility";

/**
 * The photosensitivity fields of the section (FIELD / FILE_FIELD names), listed in not_measured when the flash
 * analysis that was asked for did not finish. flashes_judged and its reason stay: they say why.
 */
export const FLASH_FIELD_KEYS = ["maxFlashes", "maxRedFlashes", "redFlash", "flashRisk", "worstSecond", "framesAnalyzed", "flashFps", "flashArea"] as const;

/** Frames decoded to find captions in the pictures. */
export const CC_PROBE_FRAMES = 8;
/** Video codecs that can carry A/53 caption data in their pictures. */
const CC_CODECS = new Set(["h264", "hevc", "mpeg2video"]);
const AD_TITLE = /\baudio[ -]?descri|\bdescribed video\b|\bdescriptive (audio|video)\b/i;
/** "AD" as a word, in capitals only ("Ad", "ad" are too common in ad titles to mean audio description). */
const AD_WORD = /(^|[^A-Za-z])AD([^A-Za-z]|$)/;

/** Subtitle streams that carry captions, forced-only tracks left out (they translate foreign speech, not caption it). */
export function subtitleCaptionTracks(streams: ProbeStream[]): MediaTrack[] {
  return streams
    .filter((s) => s.codec_type === "subtitle" && !s.disposition?.forced)
    .map((s) => track(s, s.disposition?.hearing_impaired ? "disposition_hearing_impaired" : "subtitle_stream"));
}

/** Audio streams the file declares as audio description. */
export function audioDescriptionTracks(streams: ProbeStream[]): MediaTrack[] {
  const out: MediaTrack[] = [];
  for (const s of streams) {
    if (s.codec_type !== "audio") continue;
    const d = s.disposition ?? {};
    const by = d.descriptions ? "disposition_descriptions" : d.visual_impaired ? "disposition_visual_impaired" : AD_TITLE.test(titleOf(s)) || AD_WORD.test(titleOf(s)) ? "title" : "";
    if (by) out.push(track(s, by));
  }
  return out;
}

/** Whether the video stream's codec can carry captions in its pictures (otherwise there is nothing to decode for). */
export function canCarryPictureCaptions(video: ProbeStream | undefined): boolean {
  return !!video && CC_CODECS.has(video.codec_name ?? "");
}

/**
 * The caption branch of a video pass: the first CC_PROBE_FRAMES frames of the stream the pass decodes from the start
 * (its first-frame input), printed by a showinfo named `cc` (no checksums: only its side data lines are read) — which lists each frame's side data, and the decoders
 * (H.264, HEVC, MPEG-2) attach the pictures' A/53 caption data as "A/53 closed captions" side data exactly when they
 * set the closed-caption flag `probeVideoCaptions` reads. The same answer from frames the pass decodes anyway, without
 * a process of its own (ffmpeg 5.1 spends ~0.1 s of CPU loading its libraries per process, and that probe decoded
 * its 8 frames again: 0.18–0.22 s of CPU for 1080p). Its end is mapped to the null muxer as `[ccinfo]`.
 */
export function captionChain(source: string): string {
  return `${source}trim=end_frame=${CC_PROBE_FRAMES},showinfo@cc=checksum=0[ccinfo]`;
}

/**
 * What the caption branch saw: true when a frame carried caption data; false when it saw CC_PROBE_FRAMES frames, or
 * the pass finished (a shorter video), without any; undefined when it saw too little to say (the pass failed first).
 */
export function readPictureCaptions(stderr: string, finished: boolean): boolean | undefined {
  if (/\[showinfo@cc @ [^\]]+\]\s+side data - A\/53 closed captions/.test(stderr)) return true;
  const frames = stderr.match(/\[showinfo@cc @ [^\]]+\] n:\s*\d+ pts:/g)?.length ?? 0;
  return finished || frames >= CC_PROBE_FRAMES ? false : undefined;
}

/**
 * Decodes the first frames of the video stream and reads the decoder's closed-caption flag (a process of its own: the
 * probes now read the same from their video pass, `captionChain`; kept for a video that is not otherwise decoded). `inputOptions`: the same
 * restrictions as the probe's own ffprobe (whitelists, frame size). Rejects when ffprobe fails or times out: the
 * caller lists captions as not measured unless a subtitle stream already answered.
 */
export async function probeVideoCaptions(path: string, videoIndex: number, opts: ToolOptions & { inputOptions: string[] }): Promise<boolean> {
  const { stdout } = await runTool(
    "ffprobe",
    [
      "-v", "error", ...opts.inputOptions,
      "-select_streams", String(videoIndex),
      "-read_intervals", `%+#${CC_PROBE_FRAMES}`,
      // A frame entry makes ffprobe decode the frames; the stream's flag is printed after them.
      "-show_entries", "frame=key_frame:stream=index,closed_captions",
      "-print_format", "json",
      "-i", path,
    ],
    opts,
  );
  const parsed = JSON.parse(stdout) as { streams?: Array<{ index?: number; closed_captions?: number }> };
  return (parsed.streams ?? []).some((s) => s.index === videoIndex && s.closed_captions === 1);
}

/** The accessibility section's caption and audio-description part. `pictureCaptions` undefined: not looked for. */
export function mediaAccessibility(streams: ProbeStream[], video: ProbeStream | undefined, pictureCaptions: boolean | undefined): MediaAccessibility {
  const captionTracks = subtitleCaptionTracks(streams);
  if (pictureCaptions && video) {
    captionTracks.push(create(MediaTrackSchema, { streamIndex: video.index, codec: "cea_608_708", language: "", title: "", declaredBy: "video_closed_captions" }));
  }
  const ad = audioDescriptionTracks(streams);
  return create(MediaAccessibilitySchema, {
    captions: captionTracks.length > 0,
    captionTracks,
    audioDescription: ad.length > 0,
    audioDescriptionTracks: ad,
    worstSecondMs: -1n,
  });
}

/**
 * Captions were not fully looked for: the video could carry captions in its pictures and that probe failed, and no
 * subtitle stream answered already.
 */
export function captionsUnmeasured(a: MediaAccessibility, video: ProbeStream | undefined, pictureCaptions: boolean | undefined): boolean {
  return !a.captions && canCarryPictureCaptions(video) && pictureCaptions === undefined;
}

function titleOf(s: ProbeStream): string {
  const t = s.tags ?? {};
  return t.title ?? t.TITLE ?? "";
}

function track(s: ProbeStream, declaredBy: string): MediaTrack {
  const t = s.tags ?? {};
  const lang = (t.language ?? t.LANGUAGE ?? "").trim();
  return create(MediaTrackSchema, {
    streamIndex: s.index,
    codec: s.codec_name ?? "",
    language: lang === "und" ? "" : lang,
    title: titleOf(s),
    declaredBy,
  });
}
