import { chmod, chown, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { create } from "@bufbuild/protobuf";
import { MediaInputSchema, type MediaAccessibility } from "@cva/contracts";
import { createMemoryArtifactSink, createOutboundPolicy } from "@cva/platform";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toolUser } from "../src/exec.ts";
import { createFileProber, type FileFacts, type FileProber } from "../src/file-prober.ts";
import { createMediaProber, type MediaProber } from "../src/index.ts";
import { VAST_FLASHES_NOT_MEASURED } from "../src/media-accessibility.ts";
import { makeA11yMedia, makeFlashMedia } from "./a11y-fixtures.ts";
import { startFixtureServer, type FixtureServer } from "./fixtures.ts";

// Known truth for captions and audio description carried in media files (issue 25 §4): each fixture is made by
// ffmpeg to carry exactly one kind of track (a11y-fixtures.ts), and both probes — the raw video file's (scanVideo) and
// the VAST media file's — must find it, and nothing in the file that carries none.

const artifacts = createMemoryArtifactSink();
let media: string;
let work: string;
let fileProber: FileProber;
let vastProber: MediaProber;
let server: FixtureServer;

beforeAll(async () => {
  media = await mkdtemp(join(tmpdir(), "cva-a11y-fixtures-"));
  work = await mkdtemp(join(tmpdir(), "cva-a11y-work-"));
  await makeA11yMedia(media);
  // As root the decoders run as an unprivileged user, who must reach the fixtures and job folders.
  await chmod(media, 0o711);
  await chmod(work, 0o711);
  fileProber = createFileProber({ artifacts });
  server = await startFixtureServer(media);
  vastProber = createMediaProber({ policy: createOutboundPolicy(["127.0.0.0/8", "::1/128"]), artifacts, workDir: work, limits: { downloadTimeoutMs: 20_000 } });
}, 180_000);

afterAll(async () => {
  await server?.close();
  await rm(media, { recursive: true, force: true });
  await rm(work, { recursive: true, force: true });
});

async function videoFile(name: string): Promise<FileFacts> {
  const dir = await mkdtemp(join(work, "job-"));
  const user = toolUser();
  if (user) await chown(dir, user.uid, user.gid);
  try {
    const r = await fileProber.probeFile(join(media, name), "video", { dir });
    if ("refused" in r) throw new Error(`${name} refused: ${r.refused}`);
    return r.facts;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const tracks = (a: MediaAccessibility | undefined, which: "caption" | "ad") =>
  (which === "caption" ? a?.captionTracks : a?.audioDescriptionTracks)?.map((t) => ({ codec: t.codec, language: t.language, declaredBy: t.declaredBy, title: t.title }));

describe("captions carried in a video file (scanVideo)", () => {
  it("a mov_text track (English), a WebVTT track (French), an EIA-608 track (c608): each a caption track", async () => {
    const [movText, vtt, c608] = await Promise.all([videoFile("mov-text.mp4"), videoFile("webvtt.mkv"), videoFile("c608.mov")]);
    expect(movText.accessibility?.captions).toBe(true);
    expect(tracks(movText.accessibility, "caption")).toEqual([{ codec: "mov_text", language: "eng", declaredBy: "subtitle_stream", title: "" }]);
    expect(tracks(vtt.accessibility, "caption")).toEqual([{ codec: "webvtt", language: "fra", declaredBy: "subtitle_stream", title: "" }]);
    expect(tracks(c608.accessibility, "caption")).toEqual([{ codec: "eia_608", language: "", declaredBy: "subtitle_stream", title: "" }]);
    for (const f of [movText, vtt, c608]) expect(f.notMeasured).not.toContain("accessibility.captions");
  }, 120_000);

  it("CEA-608 in the H.264 pictures (A/53 SEI, no caption stream): found by decoding the first frames", async () => {
    const f = await videoFile("cea608.mp4");
    expect(f.accessibility?.captions).toBe(true);
    expect(tracks(f.accessibility, "caption")).toEqual([{ codec: "cea_608_708", language: "", declaredBy: "video_closed_captions", title: "" }]);
  }, 60_000);

  it("no captions: plain video and audio; a forced-only subtitle track is not captions", async () => {
    const [plain, forced] = await Promise.all([videoFile("plain.mp4"), videoFile("forced.mp4")]);
    for (const f of [plain, forced]) {
      expect(f.accessibility?.captions).toBe(false);
      expect(f.accessibility?.captionTracks).toEqual([]);
      expect(f.notMeasured).not.toContain("accessibility.captions");
    }
  }, 60_000);

  it("audio description: a stream with disposition descriptions; a Matroska stream titled so; none in a plain file", async () => {
    const [flagged, titled, plain] = await Promise.all([videoFile("audio-description.mp4"), videoFile("ad-title.mkv"), videoFile("plain.mp4")]);
    expect(flagged.accessibility?.audioDescription).toBe(true);
    expect(tracks(flagged.accessibility, "ad")).toEqual([{ codec: "aac", language: "", declaredBy: "disposition_descriptions", title: "" }]);
    expect(flagged.accessibility?.audioDescriptionTracks[0]?.streamIndex).toBe(2);
    expect(tracks(titled.accessibility, "ad")).toEqual([{ codec: "aac", language: "", declaredBy: "title", title: "English (Audio Description)" }]);
    expect(plain.accessibility?.audioDescription).toBe(false);
    expect(plain.accessibility?.audioDescriptionTracks).toEqual([]);
  }, 60_000);
});

describe("captions carried in a VAST media file", () => {
  const probe = (path: string) => vastProber.probe(create(MediaInputSchema, { url: `${server.base}${path}` }));

  it("mov_text and CEA-608 in the pictures are found; audio description is found; flashes are said not to be measured", async () => {
    const [movText, cea, ad, plain] = await Promise.all([probe("/mov-text.mp4"), probe("/cea608.mp4"), probe("/audio-description.mp4"), probe("/plain.mp4")]);
    for (const p of [movText, cea, ad, plain]) {
      expect(p.error).toBe("");
      expect(p.notMeasured).toEqual([]);
      expect(p.accessibility?.flashesJudged).toBe(false);
      expect(p.accessibility?.flashesNotJudgedReason).toBe(VAST_FLASHES_NOT_MEASURED);
    }
    expect(tracks(movText.accessibility, "caption")).toEqual([{ codec: "mov_text", language: "eng", declaredBy: "subtitle_stream", title: "" }]);
    expect(tracks(cea.accessibility, "caption")).toEqual([{ codec: "cea_608_708", language: "", declaredBy: "video_closed_captions", title: "" }]);
    expect(ad.accessibility?.audioDescription).toBe(true);
    expect(plain.accessibility?.captions).toBe(false);
    expect(plain.accessibility?.audioDescription).toBe(false);
  }, 120_000);
});

describe("flashes in a video file (WCAG 2.3.1), from every frame of the file video pass", () => {
  let flashDir: string;
  beforeAll(async () => {
    flashDir = await mkdtemp(join(media, "flash-"));
    await chmod(flashDir, 0o711);
    await makeFlashMedia(flashDir);
  }, 180_000);
  const flashes = async (name: string) => (await videoFile(join(flashDir.slice(media.length + 1), name))).accessibility!;

  it("2 Hz full-frame: 2 a second, no risk; 4 Hz: 4, risk; 10 Hz (60 fps): 10, risk", async () => {
    const [two, four, ten] = await Promise.all([flashes("flash-2hz.mp4"), flashes("flash-4hz.mp4"), flashes("flash-10hz.mp4")]);
    expect([two.maxFlashesPerSecond, four.maxFlashesPerSecond, ten.maxFlashesPerSecond]).toEqual([2, 4, 10]);
    expect([two.flashRisk, four.flashRisk, ten.flashRisk]).toEqual([false, true, true]);
    for (const a of [two, four, ten]) {
      expect(a.flashesJudged).toBe(true);
      expect(a.redFlash).toBe(false);
      expect(a.worstSecondMs).toBeGreaterThanOrEqual(0n);
      expect(a.worstSecondMs).toBeLessThanOrEqual(2000n);
      // 320x240: a quarter of a third each way.
      expect(a.flashAreaThresholdPx).toBe(2133n);
    }
    expect([two.flashAnalysisFps, four.flashAnalysisFps, ten.flashAnalysisFps]).toEqual([30, 30, 60]);
    expect([two.framesAnalyzed, ten.framesAnalyzed]).toEqual([90, 180]);
  }, 120_000);

  it("a 32x32 box flashing at 10 Hz is under the area threshold: no flash; red/black at 5 Hz is a red flash", async () => {
    const [box, red] = await Promise.all([flashes("flash-10hz-box.mp4"), flashes("flash-red-5hz.mp4")]);
    expect(box.maxFlashesPerSecond).toBe(0);
    expect(box.flashRisk).toBe(false);
    expect(box.worstSecondMs).toBe(-1n);
    expect(red.maxRedFlashesPerSecond).toBe(5);
    expect(red.redFlash).toBe(true);
    expect(red.flashRisk).toBe(true);
  }, 120_000);

  it("the flash fields are measured, so none is listed as not measured", async () => {
    const f = await videoFile(join(flashDir.slice(media.length + 1), "flash-2hz.mp4"));
    expect(f.notMeasured.filter((p) => p.startsWith("accessibility."))).toEqual([]);
  }, 60_000);
});

describe("flashes in the VAST media file the analyzer flagged (MediaInput.analyze_flashes): the flash pass", () => {
  let flashDir: string;
  beforeAll(async () => {
    flashDir = await mkdtemp(join(media, "vast-flash-"));
    await chmod(flashDir, 0o711);
    await makeFlashMedia(flashDir);
  }, 180_000);
  const probe = (name: string, analyzeFlashes: boolean) =>
    vastProber.probe(create(MediaInputSchema, { url: `${server.base}/${flashDir.slice(media.length + 1)}/${name}`, analyzeFlashes }));

  it("10 Hz full-frame (60 fps): 10 a second, a risk; 2 Hz: 2, no risk; the same fields and values as scanVideo's", async () => {
    const [ten, two, tenFile] = await Promise.all([
      probe("flash-10hz.mp4", true), probe("flash-2hz.mp4", true), videoFile(join(flashDir.slice(media.length + 1), "flash-10hz.mp4")),
    ]);
    for (const p of [ten, two]) {
      expect(p.error).toBe("");
      expect(p.notMeasured).toEqual([]);
      expect(p.accessibility?.flashesJudged).toBe(true);
      expect(p.accessibility?.redFlash).toBe(false);
      expect(p.accessibility?.flashAreaThresholdPx).toBe(2133n);
    }
    const a10 = ten.accessibility!;
    const a2 = two.accessibility!;
    expect([a10.maxFlashesPerSecond, a2.maxFlashesPerSecond]).toEqual([10, 2]);
    expect([a10.flashRisk, a2.flashRisk]).toEqual([true, false]);
    expect([a10.flashAnalysisFps, a2.flashAnalysisFps]).toEqual([60, 30]);
    expect([a10.framesAnalyzed, a2.framesAnalyzed]).toEqual([180, 90]);
    expect(a10.worstSecondMs).toBeGreaterThanOrEqual(0n);
    expect(a10.worstSecondMs).toBeLessThanOrEqual(2000n);
    // One consumer, one analysis: the VAST rendition reads exactly what scanVideo reads for the same file.
    const f = tenFile.accessibility!;
    expect([a10.maxFlashesPerSecond, a10.flashRisk, a10.worstSecondMs, a10.framesAnalyzed]).toEqual([f.maxFlashesPerSecond, f.flashRisk, f.worstSecondMs, f.framesAnalyzed]);
    // The rest of the probe is what it was.
    expect(ten.fileInfo?.video?.width).toBe(320);
    expect(ten.poster).toBeDefined();
  }, 180_000);

  it("a rendition not flagged runs no flash pass: flashes_judged false, the reason names where the verdict is", async () => {
    const p = await probe("flash-10hz.mp4", false);
    expect(p.error).toBe("");
    expect(p.notMeasured).toEqual([]);
    expect(p.accessibility?.flashesJudged).toBe(false);
    expect(p.accessibility?.framesAnalyzed).toBe(0);
    expect(p.accessibility?.flashRisk).toBe(false);
    expect(p.accessibility?.flashesNotJudgedReason).toBe(VAST_FLASHES_NOT_MEASURED);
  }, 60_000);
});
