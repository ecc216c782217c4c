import { execFile } from "node:child_process";
import { chmod, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { create } from "@bufbuild/protobuf";
import { MediaInputSchema, ScanJobSchema, ScanKind, type MediaProbe } from "@cva/contracts";
import { createMemoryArtifactSink, createOutboundPolicy } from "@cva/platform";
import { corpusPath, describeWithCorpus } from "@cva/platform/testing/index.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DECODER_WHITELIST, FORMAT_WHITELIST, MAX_PIXELS, SAFE_INPUT_OPTIONS } from "../src/decode-limits.ts";
import { prlimitArgs, runTool, ToolError } from "../src/exec.ts";
import { createMediaProber, runJob, type MediaProber, type MediaProberLimits } from "../src/index.ts";
import { ffmpeg, startFixtureServer, type FixtureServer } from "./fixtures.ts";

// Hostile media, generated here (no binary fixtures): a frame size claim far over MAX_PIXELS, containers and codecs
// off the whitelists, a file whose analysis runs long. Each gets its documented answer within its bound, leaves no
// process behind, and the prober measures a normal file right after.

const policy = createOutboundPolicy(["127.0.0.0/8", "::1/128"]);
const artifacts = createMemoryArtifactSink();
const run = promisify(execFile);

let mediaDir: string;
let workDir: string;
let server: FixtureServer;

/** A VP8 WebM whose every keyframe header claims 16000x16000 (256 M pixels; the container still says 64x64). */
async function hugeFrameWebm(path: string): Promise<number> {
  await ffmpeg("-f", "lavfi", "-i", "testsrc2=s=64x64:r=10:d=1", "-c:v", "libvpx", "-g", "1", "-b:v", "100k", path);
  const b = await readFile(path);
  let patched = 0;
  // A VP8 keyframe: 3-byte frame tag, start code 9d 01 2a, then 14-bit width and height (little-endian, 2 bits scale).
  for (let i = b.indexOf(Buffer.from([0x9d, 0x01, 0x2a])); i >= 0; i = b.indexOf(Buffer.from([0x9d, 0x01, 0x2a]), i + 3)) {
    if ((b.readUInt16LE(i + 3) & 0x3fff) !== 64 || (b.readUInt16LE(i + 5) & 0x3fff) !== 64) continue;
    b.writeUInt16LE(16000, i + 3);
    b.writeUInt16LE(16000, i + 5);
    patched++;
  }
  await writeFile(path, b);
  return patched;
}

beforeAll(async () => {
  mediaDir = await mkdtemp(join(tmpdir(), "cva-media-hostile-"));
  workDir = await mkdtemp(join(tmpdir(), "cva-media-hostile-work-"));
  // As root the decoders run as an unprivileged user, who must be able to reach the probes' directories in here.
  await chmod(workDir, 0o711);
  expect(await hugeFrameWebm(join(mediaDir, "huge-frame.webm"))).toBeGreaterThanOrEqual(10);
  // NUT: a container ffmpeg writes and reads, but no VAST media file comes in; it is off the format whitelist.
  await ffmpeg("-f", "lavfi", "-i", "testsrc2=s=160x90:r=10:d=1", "-c:v", "mpeg4", "-f", "nut", join(mediaDir, "clip.nut"));
  // FFV1 in Matroska: a whitelisted container around a decoder that is not.
  await ffmpeg("-f", "lavfi", "-i", "testsrc2=s=160x90:r=10:d=1", "-c:v", "ffv1", join(mediaDir, "ffv1.mkv"));
  // 30 minutes of stereo silence as FLAC: 0.3 MB, made in about a second, but the audio pass (EBU R128 with true
  // peak, 4x oversampled) takes several CPU seconds over it.
  await ffmpeg("-f", "lavfi", "-i", "anullsrc=r=48000:cl=stereo", "-t", "1800", "-c:a", "flac", join(mediaDir, "long.flac"));
  // H.264 with a caption track (MP4 text): ffprobe opens the caption's decoder too.
  await writeFile(join(mediaDir, "cap.srt"), "1\n00:00:00,000 --> 00:00:00,900\nHello\n");
  await ffmpeg("-f", "lavfi", "-i", "testsrc2=s=160x90:r=10:d=1", "-i", join(mediaDir, "cap.srt"),
    "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:s", "mov_text", join(mediaDir, "captioned.mp4"));
  // A normal file, probed after each hostile one.
  await ffmpeg("-f", "lavfi", "-i", "testsrc2=s=320x180:r=25:d=1", "-f", "lavfi", "-i", "sine=f=440:d=1",
    "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest", join(mediaDir, "ok.mp4"));
  server = await startFixtureServer(mediaDir, corpusPath("media"));
}, 120_000);

afterAll(async () => {
  await server?.close();
  await rm(mediaDir, { recursive: true, force: true });
  await rm(workDir, { recursive: true, force: true });
});

const prober = (limits: Partial<MediaProberLimits> = {}) => createMediaProber({ policy, artifacts, workDir, limits });
const probe = (p: MediaProber, path: string) => p.probe(create(MediaInputSchema, { url: `${server.base}${path}` }));

/** No ffmpeg/ffprobe of this test's work directory is still running (the process group was killed). */
async function leftoverTools(): Promise<string[]> {
  const { stdout } = await run("ps", ["-eo", "pid,args"]).catch(() => ({ stdout: "" }));
  return stdout.split("\n").filter((l) => l.includes(workDir) && /ff(mpeg|probe)/.test(l));
}

/** The prober is healthy: a normal file right after is measured whole. */
async function expectHealthy(p: MediaProber): Promise<void> {
  const ok = await probe(p, "/ok.mp4");
  expect(ok.error).toBe("");
  expect(ok.analysisError).toBe("");
  expect(ok.fileInfo?.video?.dimensions).toBe("320x180");
  expect(ok.fileInfo?.audio?.loudness).toBeDefined();
  expect(await readdir(workDir)).toEqual([]);
}

describe("ffmpeg arguments and OS limits", () => {
  it("every input carries the protocol, format and decoder whitelists, max_pixels and a thread cap", () => {
    expect(SAFE_INPUT_OPTIONS).toEqual([
      "-protocol_whitelist", "file", "-format_whitelist", FORMAT_WHITELIST, "-codec_whitelist", DECODER_WHITELIST,
      "-max_pixels", "35389440", "-threads", "2",
    ]);
    expect(MAX_PIXELS).toBe(8192 * 4320);
  });

  it("every whitelisted decoder is one this ffmpeg has (a misspelt name would refuse its codec)", async () => {
    const { stdout } = await run("ffmpeg", ["-hide_banner", "-decoders"]);
    const have = new Set(stdout.split("\n").map((l) => l.trim().split(/\s+/)[1]));
    expect(DECODER_WHITELIST.split(",").filter((d) => !have.has(d))).toEqual([]);
  });

  it("prlimit bounds address space, CPU time, written file size, descriptors and core dumps", () => {
    expect(prlimitArgs({ addressSpaceBytes: 3 * 1024 ** 3, cpuSeconds: 121, fileSizeBytes: 64 * 1024 ** 2, openFiles: 256 })).toEqual([
      "--as=3221225472:3221225472", "--cpu=121:122", "--fsize=67108864:67108864", "--nofile=256:256", "--core=0:0",
    ]);
  });

  it("a process over its address space gets ENOMEM, and is reported as the memory limit", async () => {
    // 320 MiB of address space holds ffmpeg and its libraries, not a 16000x16000 picture (384 MB): the kernel refuses
    // the allocation and ffmpeg says "Cannot allocate memory".
    const err = await runTool("ffmpeg", [
      "-v", "error", "-f", "lavfi", "-i", "testsrc2=s=320x240:d=0.04", "-vf", "scale=16000:16000", "-frames:v", "1", "-f", "null", "-",
    ], { timeoutMs: 20_000, limits: { addressSpaceBytes: 320 * 1024 ** 2 } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ToolError);
    expect((err as ToolError).reason).toBe("limit");
    expect((err as ToolError).limit).toBe("memory");
  });
});

// Issue 20, hole 4: ffmpeg and ffprobe inherited NATS_USER/NATS_PASSWORD/NATS_URL and the service-secret digest, and
// ran as root under `npm start`. They get a minimal environment, and as root they drop to an unprivileged user.
describe("what a decoder process is given", () => {
  const SECRETS = { NATS_USER: "media-prober", NATS_PASSWORD: `cva-test-secret-${process.pid}`, NATS_URL: "nats://127.0.0.1:4222", CVA_SERVICE_SECRET_SHA256: "ab".repeat(32) };
  const saved: Record<string, string | undefined> = {};
  beforeAll(() => {
    for (const [k, v] of Object.entries(SECRETS)) {
      saved[k] = process.env[k];
      process.env[k] = v;
    }
  });
  afterAll(() => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });

  it("no variable of the prober's environment but PATH and the locale", async () => {
    // `env` run the way ffmpeg is run: what it prints is exactly the environment a decoder gets.
    const { stdout } = await runTool("env", [], { timeoutMs: 10_000 });
    const names = stdout.split("\n").filter((l) => l.includes("=")).map((l) => l.slice(0, l.indexOf("=")));
    expect(names.filter((n) => !["PATH", "LANG", "LC_ALL"].includes(n))).toEqual([]);
    for (const v of Object.values(SECRETS)) expect(stdout).not.toContain(v);
  });

  it.skipIf(process.getuid?.() !== 0)("as root, an unprivileged user with no capabilities", async () => {
    const { stdout } = await runTool("sh", ["-c", "id -u; id -g; id -G; grep -E '^Cap(Eff|Prm|Bnd):|^NoNewPrivs:' /proc/self/status"], { timeoutMs: 10_000 });
    const [uid, gid, groups, ...status] = stdout.trim().split("\n");
    expect(uid).not.toBe("0");
    expect(gid).not.toBe("0");
    expect(groups!.split(" ")).not.toContain("0");
    for (const line of status) {
      if (line.startsWith("Cap")) expect(line).toMatch(/:\s+0+$/);
      else expect(line).toMatch(/NoNewPrivs:\s+1/);
    }
  });

  it("a probe still reads its download and writes its images as that user", async () => {
    await expectHealthy(prober());
  });
});

describe("hostile media files", () => {
  it("a frame size claim of 16000x16000 is refused by the decoder, quickly and with little memory", async () => {
    const p = prober();
    const started = performance.now();
    const r = await probe(p, "/huge-frame.webm");
    const ms = performance.now() - started;
    // ffprobe describes the container (it declares 64x64); the decoder refuses the frames that claim 16000x16000.
    expect(r.error).toBe("");
    expect(r.analysisError).toBe(`video frames are larger than ${MAX_PIXELS} pixels (8192x4320); not decoded`);
    expect(r.notMeasured).toEqual(expect.arrayContaining(["file_info.video.letterboxing", "poster", "film_strip"]));
    expect(r.poster).toBeUndefined();
    expect(ms).toBeLessThan(15_000);
    expect(await leftoverTools()).toEqual([]);
    await expectHealthy(p);
  });

  it("a container off the format whitelist (NUT) is not media to the prober", async () => {
    const p = prober();
    const r = await probe(p, "/clip.nut");
    expect(r.httpCode).toBe(200);
    expect(r.error).toBe("not a media file: format not recognised");
    expect(r.fileInfo).toBeUndefined();
    await expectHealthy(p);
  });

  it("a codec off the decoder whitelist (FFV1 in Matroska) is named and not decoded", async () => {
    const p = prober();
    const r = await probe(p, "/ffv1.mkv");
    expect(r.error).toBe("unsupported media codec: ffv1 is not one the prober decodes");
    expect(r.fileInfo).toBeUndefined();
    await expectHealthy(p);
  });

  it("a caption track does not cost a file its measurement (its decoder is whitelisted)", async () => {
    const r = await probe(prober(), "/captioned.mp4");
    expect(r.error).toBe("");
    expect(r.analysisError).toBe("");
    expect(r.fileInfo?.video?.dimensions).toBe("160x90");
  });

  it("an analysis that runs past its time-out is killed with its process group; what ffprobe measured stays", async () => {
    const p = prober({ analysisTimeoutMs: 1_500 });
    const started = performance.now();
    const r = await probe(p, "/long.flac");
    const ms = performance.now() - started;
    expect(r.error).toBe("");
    expect(r.analysisError).toBe("audio analysis timed out after 1.5 s");
    expect(r.fileInfo?.audio?.codec).toBe("flac");
    expect(r.fileInfo?.container?.duration).toBeCloseTo(1800, 0);
    expect(r.notMeasured).toContain("file_info.audio.loudness");
    // 1.5 s of pass plus download and ffprobe; generous for a loaded 2-core machine, far below the decode's own time.
    expect(ms).toBeLessThan(12_000);
    expect(await leftoverTools()).toEqual([]);
    await expectHealthy(p);
  });

  it("an analysis that uses up its CPU time is stopped by the kernel (RLIMIT_CPU), even with a long time-out", async () => {
    const p = prober({ analysisTimeoutMs: 120_000, processLimits: { cpuSeconds: 1 } });
    const started = performance.now();
    const r = await probe(p, "/long.flac");
    expect(r.error).toBe("");
    expect(r.analysisError).toBe("audio analysis stopped at its CPU time limit");
    expect(r.notMeasured).toContain("file_info.audio.loudness");
    // One CPU second; wall time is longer on a loaded machine, still far below the 120 s time-out.
    expect(performance.now() - started).toBeLessThan(30_000);
    expect(await leftoverTools()).toEqual([]);
    await expectHealthy(prober());
  });
});

describe("the job's deadline", () => {
  it("a media job near its deadline answers in time, saying the deadline cut the analysis", async () => {
    const p = prober();
    // 2.5 s to the deadline, 1.5 s of it kept for the reply: the 30-minute file's audio pass cannot finish.
    const job = create(ScanJobSchema, {
      jobId: "deadline-1", kind: ScanKind.MEDIA, deadlineUnixMs: BigInt(Date.now() + 2_500),
      input: { case: "media", value: create(MediaInputSchema, { url: `${server.base}/long.flac` }) },
    });
    const started = performance.now();
    const out = await runJob(p, job);
    expect(out.case).toBe("media");
    const r = out.value as MediaProbe;
    // Where the deadline falls depends on how fast the machine got through download and ffprobe: it stops the audio
    // pass it runs into, or (on a loaded machine) leaves no time to start the analysis at all. Either way it says so.
    expect(r.analysisError).toMatch(/^(audio analysis stopped|media analysis skipped): the scan's deadline was reached$/);
    expect(performance.now() - started).toBeLessThan(2_500);
    expect(await leftoverTools()).toEqual([]);
  });

  it("a cap from the requester's byte budget stops the download and says so", async () => {
    const p = prober();
    const r = await p.probe(create(MediaInputSchema, { url: `${server.base}/huge-chunked.mp4`, maxBytes: 300_000n }));
    expect(r.error).toBe("media download stopped at 300000 bytes: the scan's byte budget was reached");
    expect(r.notMeasured).toEqual(["file_size", "download_speed"]);
    // Counted against the budget in full, so a server cannot hide what it sent.
    expect(Number(r.receivedBytes)).toBe(300_000);
    const ok = await p.probe(create(MediaInputSchema, { url: `${server.base}/ok.mp4`, maxBytes: 10_000_000n }));
    expect(ok.error).toBe("");
    expect(Number(ok.receivedBytes)).toBe(Number(ok.fileSize));
  });
});

describeWithCorpus("the whitelists admit every corpus media file", "media", () => {
  const files = [
    "iab-vast-samples/VAST-4.0-Short-Intro.mp4", "iab-simid/shortAd.mp4", "iab-simid/fakeAd.mp4", "howler.js/sound2.mp3",
    "howler.js/sound2.webm", "get-media-dimensions/audio.opus", "get-media-dimensions/video.webm",
    "get-media-dimensions/audio.mp3", "get-media-dimensions/video_cw.mp4", "get-media-dimensions/video.mp4",
  ];
  it.each(files)("%s is measured whole", async (f) => {
    const r = await probe(prober(), `/corpus/${f}`);
    expect(r.error).toBe("");
    expect(r.analysisError).toBe("");
    expect(r.fileInfo?.video ?? r.fileInfo?.audio).toBeDefined();
  });
});
