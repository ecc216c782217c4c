import type { AudioFileReport, ImageFileReport, TagReport, VastCreative, VastMediaFile, VastReport, VideoFileReport, ZipReport } from "@cva/contracts";

/** How a test's `actual` is to be read. Booleans are carried as numbers: 1 = true, 0 = false. */
export type DataType = "int" | "float" | "bool";

/** What a test module says about itself; copied into every TestResult it produces. */
export interface TestMeta {
  /** Test id; equals the module's file name (checked by a test). */
  readonly id: string;
  readonly name: string;
  readonly data_type: DataType;
  /** "KB", "bytes", "ms", "%", "kbps", "LUFS", "Hz", "s", "count", or "" for booleans. */
  readonly unit: string;
  readonly description: string;
}

/**
 * A measurement: a number, or null when the test does not apply to this creative (the test is then left out of the
 * results), or a number with `detail` — what the test found, in words (e.g. which media file cannot play), added to
 * the result's message. A measure that throws produces an error result whose message is the thrown message ("not
 * evaluated" and why). A non-finite number (Infinity) means "unbounded", e.g. an animation still running at the
 * scan's time-out; the engine records it as actual = -1 with a message, mirroring the report's own -1 convention.
 */
export type Measurement = number | null | { readonly value: number; readonly detail: string };

/** Input of the per-media-file VAST tests: the file plus where it sits in the report. */
export interface MediaFileInput {
  readonly report: VastReport;
  readonly creative: VastCreative;
  readonly creativeIndex: number;
  readonly mediaFile: VastMediaFile;
  readonly mediaFileIndex: number;
}

export interface TagTest {
  readonly meta: TestMeta;
  measure(report: TagReport): Measurement;
}

export interface VastXmlTest {
  readonly meta: TestMeta;
  measure(report: VastReport): Measurement;
}

export interface MediaFileTest {
  readonly meta: TestMeta;
  measure(input: MediaFileInput): Measurement;
}

export interface ZipTest {
  readonly meta: TestMeta;
  measure(report: ZipReport): Measurement;
}

/** Tests of a raw video file (POST /v3/scanVideo). */
export interface VideoFileTest {
  readonly meta: TestMeta;
  measure(report: VideoFileReport): Measurement;
}

/** Tests of an image file (POST /v3/scanImage). */
export interface ImageFileTest {
  readonly meta: TestMeta;
  measure(report: ImageFileReport): Measurement;
}

/** Tests of a raw audio file (POST /v3/scanAudio). */
export interface AudioFileTest {
  readonly meta: TestMeta;
  measure(report: AudioFileReport): Measurement;
}

/**
 * Where a test runs: on an ad tag report (also on a zip's render), once per VAST report ("xml" group), once per VAST
 * media file, on a zip report (v3 zip scans: with the ad tag tests on its render), or on a raw video, image or audio
 * file's report.
 */
export type Scope = "tag" | "vast_xml" | "vast_mediafile" | "zip" | "video_file" | "image_file" | "audio_file";
