// The description and the packet scan are one ffprobe (ffprobe.ts probeWithPackets). When the packet scan cannot
// finish — here a file of more packets than the run's output buffer holds — the file is still described: only the
// packet-based fields go unmeasured, as when the two were separate processes.
import { chmod, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { probeDescribed } from "../src/ffprobe.ts";
import { ffmpeg } from "./fixtures.ts";

let dir: string;
let file: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "cva-ffprobe-fallback-"));
  file = join(dir, "a.mp4");
  // 4 s at 25 fps and AAC: ~290 packets, ~26 KB of packet lines; the description is ~3 KB.
  await ffmpeg("-f", "lavfi", "-i", "testsrc2=size=160x90:rate=25:duration=4", "-f", "lavfi", "-i", "sine=duration=4",
    "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-shortest", file);
  // The tools run as their own unprivileged user (exec.ts): the folder must let it in.
  await chmod(dir, 0o711);
  await chmod(file, 0o644);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("probeDescribed", () => {
  it("returns the description and the packets when the scan fits", async () => {
    const r = await probeDescribed(file, { timeoutMs: 20_000 });
    expect(r.meta.streams.map((s) => s.codec_type).sort()).toEqual(["audio", "video"]);
    expect(r.packets?.keyframes.size).toBeGreaterThan(0);
    expect(r.packetsError).toBeUndefined();
  });

  it("still describes a file whose packet scan overflows its buffer, and says why the packets are missing", async () => {
    const r = await probeDescribed(file, { timeoutMs: 20_000, maxBuffer: 12_000 });
    expect(r.meta.streams.map((s) => s.codec_type).sort()).toEqual(["audio", "video"]);
    expect(Number(r.meta.format.duration)).toBeCloseTo(4, 0);
    expect(r.packets).toBeUndefined();
    expect(String(r.packetsError)).not.toBe("");
  });

  it("refuses what ffprobe cannot describe either way", async () => {
    await expect(probeDescribed(join(dir, "missing.mp4"), { timeoutMs: 10_000 })).rejects.toThrow();
  });
});
