import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { hugeVideoMkv, manyTracksMkv } from "./crafted-media.ts";
import { ffmpeg } from "./fixtures.ts";

/*
 * Raw video and audio files with known truth, made with ffmpeg (small: at most 352x288, at most 3.5 s). The truth of each
 * is what it was made to be, written beside it; the tests compare the measurement with it.
 *
 * Pictures: testsrc2 (busy and moving, never black or frozen) unless the case needs another; tones: aevalsrc with an
 * exact amplitude, whose loudness follows from BS.1770 — a 1 kHz sine of peak amplitude A on each of two channels
 * reads 20·log10(A) LUFS (K-weighting adds +0.69 dB at 1 kHz, cancelling the formula's -0.691; each channel's mean
 * square A²/2 gives -3.01 dB, the two channels' sum +3.01 dB) and its true peak is 20·log10(A) dBTP.
 */
const x264 = ["-c:v", "libx264", "-preset", "ultrafast", "-crf", "30"];
const yuv420 = ["-pix_fmt", "yuv420p"];
const tone = (amplitude: number, seconds: number, rate = 48000) =>
  `aevalsrc=${amplitude}*sin(2*PI*1000*t)|${amplitude}*sin(2*PI*1000*t):s=${rate}:d=${seconds}`;

/** −23 and −10 LUFS tones: amplitudes 10^(−23/20) and 10^(−10/20). */
export const AMPLITUDE_23 = 10 ** (-23 / 20);
export const AMPLITUDE_10 = 10 ** (-10 / 20);
/**
 * Clipped tone truth: channel 1 is a 1 kHz sine of amplitude 2 written as 16-bit PCM, so every sample where
 * |2·sin| ≥ 1 sits at a rail. At 48 kHz a cycle has 48 samples at 7.5° steps; |sin| ≥ 0.5 from 30° to 150° is 17
 * samples per half-cycle, 34 per cycle: 1000 cycles a second for 2 s → 68 000. Channel 2 (amplitude 0.5) never clips.
 */
export const CLIPPED_SAMPLES = 68_000;

export async function makeFileMedia(dir: string): Promise<void> {
  const at = (name: string) => join(dir, name);
  await Promise.all([
    // Interlaced: 50p pictures woven into 25 frames of two fields each (top field first), coded as interlaced.
    ffmpeg("-f", "lavfi", "-i", "testsrc2=s=352x288:r=50:d=2", "-vf", "tinterlace=mode=interleave_top,setfield=tff",
      ...x264, ...yuv420, "-flags", "+ildct+ilme", "-x264-params", "tff=1", at("interlaced.mp4")),
    // The same woven pictures coded as progressive: the header says progressive, the frames are interlaced.
    ffmpeg("-f", "lavfi", "-i", "testsrc2=s=352x288:r=50:d=2", "-vf", "tinterlace=mode=interleave_top",
      ...x264, ...yuv420, at("interlaced-unflagged.mp4")),
    // Progressive pictures coded as interlaced (header: top field first): the frames are progressive.
    ffmpeg("-f", "lavfi", "-i", "testsrc2=s=352x288:r=25:d=2", ...x264, ...yuv420, "-flags", "+ildct+ilme", "-x264-params", "tff=1",
      at("progressive-flagged.mp4")),
    // 4:2:2 10-bit H.264 (High 4:2:2).
    ffmpeg("-f", "lavfi", "-i", "testsrc2=s=320x240:r=25:d=1", ...x264, "-pix_fmt", "yuv422p10le", at("422-10bit.mp4")),
    // HDR10-style HEVC: Main 10, BT.2020 primaries and matrix, PQ transfer.
    ffmpeg("-f", "lavfi", "-i", "testsrc2=s=320x240:r=25:d=1", "-c:v", "libx265", "-preset", "ultrafast", "-x265-params", "log-level=error",
      "-pix_fmt", "yuv420p10le", "-color_primaries", "bt2020", "-color_trc", "smpte2084", "-colorspace", "bt2020nc", at("hdr-pq.mp4")),
    // Variable frame rate: 30 frames 1/30 s apart, then 30 frames 2/30 s apart (timestamps kept as they are).
    ffmpeg("-f", "lavfi", "-i", "testsrc2=s=320x240:r=30:d=2", "-vf", "setpts='(N+max(0,N-30))/30/TB'", "-fps_mode", "passthrough",
      ...x264, ...yuv420, at("vfr.mp4")),
    // 29.97 fps (30000/1001), keyframe every 15 frames (500.5 ms).
    ffmpeg("-f", "lavfi", "-i", "testsrc2=s=320x240:r=30000/1001:d=2", ...x264, ...yuv420, "-g", "15", "-keyint_min", "15",
      "-x264-params", "scenecut=0", at("ntsc.mp4")),
    // 320x180 picture in a 320x240 frame: 30 px bars top and bottom.
    ffmpeg("-f", "lavfi", "-i", "testsrc2=s=320x180:r=25:d=2", "-vf", "pad=320:240:0:30:black", ...x264, ...yuv420, at("letterbox.mp4")),
    // 240x240 picture in a 320x240 frame: 40 px bars left and right.
    ffmpeg("-f", "lavfi", "-i", "testsrc2=s=240x240:r=25:d=2", "-vf", "pad=320:240:40:0:black", ...x264, ...yuv420, at("pillarbox.mp4")),
    // 1 s black slate, 2 s picture, 0.5 s black; sound: 1 s silence, 2 s of a -23 LUFS tone, 0.5 s silence (PCM: exact).
    ffmpeg("-f", "lavfi", "-i", "color=black:s=320x240:r=25:d=1", "-f", "lavfi", "-i", "testsrc2=s=320x240:r=25:d=2",
      "-f", "lavfi", "-i", "color=black:s=320x240:r=25:d=0.5",
      "-f", "lavfi", "-i", "anullsrc=r=48000:cl=stereo:d=1", "-f", "lavfi", "-i", tone(AMPLITUDE_23, 2), "-f", "lavfi", "-i", "anullsrc=r=48000:cl=stereo:d=0.5",
      "-filter_complex", "[0][1][2]concat=n=3:v=1:a=0[v];[3][4][5]concat=n=3:v=0:a=1[a]", "-map", "[v]", "-map", "[a]",
      ...x264, ...yuv420, "-c:a", "pcm_s16le", at("slate.mov")),
    // 1 s of moving picture, its last frame held for 1.5 s (38 copies at 25 fps: 39 identical frames, 1.56 s), then 1 s
    // of other moving picture.
    ffmpeg("-f", "lavfi", "-i", "testsrc2=s=320x240:r=25:d=1", "-f", "lavfi", "-i", "mandelbrot=s=320x240:r=25",
      "-filter_complex", "[0]tpad=stop_mode=clone:stop_duration=1.5[a];[1]trim=duration=1[b];[a][b]concat=n=2:v=1:a=0[v]",
      "-map", "[v]", ...x264, ...yuv420, at("freeze.mp4")),
    // Audio files. 1 s of silence, then 2 s of tone: PCM, so the silence ends exactly at 1.000 s.
    ffmpeg("-f", "lavfi", "-i", "anullsrc=r=48000:cl=stereo:d=1", "-f", "lavfi", "-i", tone(AMPLITUDE_23, 2),
      "-filter_complex", "[0][1]concat=n=2:v=0:a=1", "-c:a", "pcm_s16le", at("lead-silence.wav")),
    // 10 s: ffmpeg's loudness range counts 3 s short-term windows from the first sample, so a steady tone shorter than
    // that reads a range of its window filling up (a 3 s tone: 20 LU); at 10 s it reads the 0 LU it has.
    ffmpeg("-f", "lavfi", "-i", tone(AMPLITUDE_23, 10), "-c:a", "pcm_s24le", at("tone-23.wav")),
    ffmpeg("-f", "lavfi", "-i", tone(AMPLITUDE_10, 3), "-c:a", "flac", at("tone-10.flac")),
    ffmpeg("-f", "lavfi", "-i", "aevalsrc=2*sin(2*PI*1000*t)|0.5*sin(2*PI*1000*t):s=48000:d=2", "-c:a", "pcm_s16le", at("clipped.wav")),
    ffmpeg("-f", "lavfi", "-i", "sine=f=440:d=2:sample_rate=44100", "-c:a", "aac", "-b:a", "64k", at("mono.m4a")),
    ffmpeg("-f", "lavfi", "-i", "sine=f=440:d=2:sample_rate=48000", "-af", "pan=5.1|FL=c0|FR=c0|FC=c0|LFE=c0|BL=c0|BR=c0",
      "-c:a", "flac", at("surround.flac")),
    // A CTV mezzanine: ProRes 422 (4:2:2 10-bit, every frame a keyframe) in MOV.
    ffmpeg("-f", "lavfi", "-i", "testsrc2=s=320x240:r=25:d=1", "-c:v", "prores_ks", "-profile:v", "2", at("prores.mov")),
    // For the truncated cases: a faststart MP4 (index first) and a 3 s FLAC.
    ffmpeg("-f", "lavfi", "-i", "testsrc2=s=320x240:r=25:d=2", ...x264, ...yuv420, "-movflags", "+faststart", at("whole-faststart.mp4")),
  ]);
  // Cut in half: the faststart MP4's index then points past the end; ntsc.mp4 (index at the end) loses its index; the
  // FLAC keeps a STREAMINFO that declares twice what is left.
  const half = async (from: string, to: string) => {
    const b = await readFile(at(from));
    await writeFile(at(to), b.subarray(0, Math.floor(b.length / 2)));
  };
  await Promise.all([half("whole-faststart.mp4", "cut-faststart.mp4"), half("ntsc.mp4", "cut-index.mp4"), half("tone-10.flac", "cut.flac")]);
  // Refusals.
  await Promise.all([
    writeFile(at("page.mp4"), "<!DOCTYPE html><html><head><title>x</title></head><body>not a video</body></html>"),
    writeFile(at("empty.mp4"), ""),
    writeFile(at("many-streams.mkv"), manyTracksMkv(10_000)),
    writeFile(at("huge.mkv"), hugeVideoMkv(60_000, 60_000)),
    writeFile(at("wide.mkv"), hugeVideoMkv(30_000, 16)),
    // A zip renamed .mp4 (a local file header and nothing more is enough for the sniff).
    writeFile(at("archive.mp4"), Buffer.concat([Buffer.from("PK\u0003\u0004", "latin1"), Buffer.alloc(60)])),
  ]);
}
