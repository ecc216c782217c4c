import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ffmpeg } from "./fixtures.ts";

/*
 * Video files with known accessibility truth, made by ffmpeg here (ffmpeg 5.1; 320x240, 2 s each unless the case needs
 * more). Each is made to be what its name says; a11y tests compare the measurement with that.
 *
 * CEA-608 in the pictures: no ffmpeg encoder invents caption data (libx264 only passes on A/53 side data a decoded
 * source already had), so `withA53Captions` writes it the way caption inserters do: an SEI NAL unit (type 6) of
 * payload type 4 (user_data_registered_itu_t_t35: country 0xB5, provider 0x0031, "GA94", user_data_type_code 3 =
 * cc_data, ATSC A/53 Part 4) in front of every picture of an Annex B H.264 stream, one CEA-608 byte pair per picture
 * ("Hello" after a resume-caption-loading command, then padding 0x80 0x80, as real streams pad), then remuxed to MP4.
 */

const x264 = ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"];
const picture = (seconds = 2) => ["-f", "lavfi", "-i", `testsrc2=s=320x240:r=25:d=${seconds}`];
const tone = (f: number) => ["-f", "lavfi", "-i", `sine=f=${f}:d=2:sample_rate=48000`];

const SRT = "1\n00:00:00,000 --> 00:00:01,500\nHello captions\n\n";
// Scenarist SCC: resume caption loading, erase, "Hello" (odd parity bytes), end of caption.
const SCC = "Scenarist_SCC V1.0\n\n00:00:00:00\t9420 9420 94ae 94ae 9452 9452 97a2 97a2 c8e5 ecec ef80 942c 942c 942f 942f\n\n";

export async function makeA11yMedia(dir: string): Promise<void> {
  const at = (name: string) => join(dir, name);
  await writeFile(at("captions.srt"), SRT);
  await writeFile(at("captions.scc"), SCC);
  await Promise.all([
    // A mov_text (tx3g) subtitle track in English beside video and audio.
    ffmpeg(...picture(), ...tone(1000), "-i", at("captions.srt"), ...x264, "-c:a", "aac", "-c:s", "mov_text",
      "-metadata:s:s:0", "language=eng", at("mov-text.mp4")),
    // A WebVTT track in Matroska.
    ffmpeg(...picture(), "-i", at("captions.srt"), ...x264, "-c:s", "webvtt", "-metadata:s:s:0", "language=fra", at("webvtt.mkv")),
    // An EIA-608 caption track (QuickTime c608) from the SCC file.
    ffmpeg(...picture(), "-i", at("captions.scc"), ...x264, "-c:s", "copy", at("c608.mov")),
    // A forced-only subtitle track: translations of foreign speech, not captions.
    ffmpeg(...picture(), "-i", at("captions.srt"), ...x264, "-c:s", "mov_text", "-disposition:s:0", "forced", at("forced.mp4")),
    // Two audio streams, the second flagged as audio description (MP4: the kind box; ffprobe: descriptions + visual_impaired).
    ffmpeg(...picture(), ...tone(1000), ...tone(880), "-map", "0", "-map", "1", "-map", "2", ...x264, "-c:a", "aac",
      "-disposition:a:1", "descriptions", at("audio-description.mp4")),
    // Matroska keeps titles: an audio stream whose title names it, no flag.
    ffmpeg(...picture(), ...tone(1000), ...tone(880), "-map", "0", "-map", "1", "-map", "2", ...x264, "-c:a", "aac",
      "-metadata:s:a:1", "title=English (Audio Description)", at("ad-title.mkv")),
    // Nothing: video and audio only.
    ffmpeg(...picture(), ...tone(1000), ...x264, "-c:a", "aac", at("plain.mp4")),
    ffmpeg(...picture(), ...x264, "-f", "h264", at("plain.h264")),
  ]);
  await writeFile(at("cea608.h264"), withA53Captions(await readFile(at("plain.h264"))));
  await ffmpeg("-r", "25", "-f", "h264", "-i", at("cea608.h264"), "-c", "copy", at("cea608.mp4"));
}

/** Inserts an A/53 cc_data SEI before every slice of an Annex B H.264 stream (one slice per picture, as x264 writes). */
export function withA53Captions(annexB: Buffer): Buffer {
  const starts: number[] = [];
  for (let i = 0; i + 3 <= annexB.length; i++) {
    if (annexB[i] === 0 && annexB[i + 1] === 0 && annexB[i + 2] === 1) {
      starts.push(i + 3);
      i += 2;
    }
  }
  const nals = starts.map((s, k) => {
    let end = k + 1 < starts.length ? starts[k + 1]! - 3 : annexB.length;
    while (end > s && annexB[end - 1] === 0) end--;
    return annexB.subarray(s, end);
  });
  const pairs = [[0x94, 0x20], [0x94, 0x20], [0xc8, 0xe5], [0xec, 0xec], [0xef, 0x80], [0x94, 0x2f], [0x94, 0x2f]];
  let n = 0;
  const out: Buffer[] = [];
  const startCode = Buffer.from([0, 0, 0, 1]);
  for (const nal of nals) {
    const type = nal[0]! & 0x1f;
    if (type === 1 || type === 5) {
      const [b1, b2] = pairs[n++] ?? [0x80, 0x80];
      // cc_data: process_cc_data_flag set, cc_count 1, em_data, one triple (marker bits, cc_valid, NTSC field 1), marker.
      const payload = [0xb5, 0x00, 0x31, 0x47, 0x41, 0x39, 0x34, 0x03, 0xc1, 0xff, 0xfc, b1!, b2!, 0xff];
      out.push(startCode, escape([0x06, 4, payload.length, ...payload, 0x80]));
    }
    out.push(startCode, nal);
  }
  return Buffer.concat(out);
}

/** Emulation prevention: 00 00 followed by 00..03 gets an 03 between. */
function escape(bytes: number[]): Buffer {
  const o: number[] = [];
  let zeros = 0;
  for (const b of bytes) {
    if (zeros >= 2 && b <= 3) {
      o.push(3);
      zeros = 0;
    }
    o.push(b);
    zeros = b === 0 ? zeros + 1 : 0;
  }
  return Buffer.from(o);
}

/**
 * Flash truth (WCAG 2.3.1): full-frame white/black alternation at `hz` cycles a second (one cycle = one flash: a pair of
 * opposing transitions), 3 s long, made frame-exact by geq on the frame time; `box` flashes only a 32x32 square (under
 * the area threshold of a 320x240 picture: a quarter of a third of it each way, 2 133 px²); `red` alternates saturated
 * red with black.
 */
function flashClip(hz: number, fps: number, kind: "full" | "box" | "red"): string {
  const on = `lt(mod(T*${hz},1),0.5)`;
  // geq on a 40x30 grid of 8 px cells, scaled up 8x by nearest neighbour (geq per pixel of 320x240 costs seconds of CPU).
  const inBox = "between(X,18,21)*between(Y,13,16)";
  const lit = kind === "box" ? `${on}*${inBox}` : on;
  const v = (level: number) => `if(${lit},${level},0)`;
  const [r, g, b] = kind === "red" ? [v(255), "0", "0"] : [v(255), v(255), v(255)];
  return `color=c=black:s=40x30:r=${fps}:d=3,format=rgb24,geq=r='${r}':g='${g}':b='${b}',scale=320:240:flags=neighbor`;
}

export const FLASH_CASES = [
  { name: "flash-2hz.mp4", hz: 2, fps: 30, kind: "full" },
  { name: "flash-4hz.mp4", hz: 4, fps: 30, kind: "full" },
  { name: "flash-10hz.mp4", hz: 10, fps: 60, kind: "full" },
  { name: "flash-10hz-box.mp4", hz: 10, fps: 60, kind: "box" },
  { name: "flash-red-5hz.mp4", hz: 5, fps: 30, kind: "red" },
] as const;

export async function makeFlashMedia(dir: string): Promise<void> {
  await Promise.all(FLASH_CASES.map((c) => ffmpeg("-f", "lavfi", "-i", flashClip(c.hz, c.fps, c.kind), ...x264, "-crf", "18", join(dir, c.name))));
}
