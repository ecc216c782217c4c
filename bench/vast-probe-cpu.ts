// Where a VAST media probe's CPU goes (issue 22 §3): the media prober's probe of the bench's VAST file (15 s 1280x720
// H.264/AAC, x264 defaults), with every ffmpeg/ffprobe it starts timed by /usr/bin/time (user + sys per process, by
// pass), alternating with the bench's floor (creatives.ts mediaFloor: ffprobe, then the audio-only ebur128 pass beside
// a full decode of the rendition) and, for an A/B in the same run, with another checkout's prober
// (PROBER_B=/path/to/other/services/media-prober/src/index.ts); EARLY_OFF=1 adds this branch with its early picture
// passes off.
//   node --import tsx bench/vast-probe-cpu.ts [rounds]
// Prints per variant: wall p50, CPU p50 (sum of its processes), each pass's CPU p50 and wall p50 ("<pass> wall"), and
// each round's walls, so that pairs can be compared.
import { execFile } from "node:child_process";
import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { createMemoryArtifactSink, createOutboundPolicy } from "@cva/platform";
import { makeVideo, mediaFloor, serveVast } from "./creatives.ts";

const run = promisify(execFile);
const rounds = Number(process.argv[2] ?? 5);
const dir = await mkdtemp(join(tmpdir(), "cva-vast-cpu-"));
await chmod(dir, 0o755);
const log = join(dir, "cpu.log");
const bin = join(dir, "bin");
await run("mkdir", ["-p", bin]);
// Each tool through /usr/bin/time, labelled by what its arguments say it is.
for (const tool of ["ffmpeg", "ffprobe"]) {
  await writeFile(join(bin, tool), `#!/bin/bash
case "$*" in
  *skip_frame*flashgrid*) l=video+flash ;; *flashgrid*) l=flash ;; *"-af ebur128"*) l=floor-audio ;; *ebur128*) l=audio ;; *skip_frame*) l=video ;; *0:v:0*) l=floor-decode ;; *) l=${tool} ;;
esac
exec /usr/bin/time -a -o ${log} -f "$l %U %S %e" /usr/bin/${tool} "$@"
`, { mode: 0o755 });
}
process.env.PATH = `${bin}:${process.env.PATH}`;

const media = await makeVideo(dir);
const vast = await serveVast(media);
const mediaUrl = vast.url.replace("/vast.xml", "/ad.mp4");
const policy = createOutboundPolicy(["127.0.0.0/8"]);
const artifacts = createMemoryArtifactSink();
type Prober = { probe(input: unknown): Promise<{ error: string; accessibility?: { maxFlashesPerSecond: number; framesAnalyzed: number } }> };
async function proberFrom(path: string, limits: object = {}): Promise<Prober> {
  const m = (await import(path)) as { createMediaProber(d: object): Prober };
  return m.createMediaProber({ policy, artifacts, workDir: dir, limits });
}
const variants: Array<{ name: string; go: () => Promise<unknown> }> = [];
const a = await proberFrom("../services/media-prober/src/index.ts");
const input = (flashes: boolean) => ({ $typeName: "cva.jobs.v1.MediaInput", url: mediaUrl, maxBytes: 0n, analyzeFlashes: flashes });
variants.push({ name: "this branch, flash pass (as the VAST analyzer asks)", go: () => a.probe(input(true)) });
variants.push({ name: "this branch, no flash pass", go: () => a.probe(input(false)) });
if (process.env.EARLY_OFF === "1") {
  // The picture passes after ffprobe (MediaProberLimits.earlyPictures false), for an A/B of the early start alone.
  const off = await proberFrom("../services/media-prober/src/index.ts", { earlyPictures: false });
  variants.push({ name: "this branch, early picture passes off", go: () => off.probe(input(true)) });
}
if (process.env.PROBER_B) {
  // PROBER_B_FLASHES=1: B is asked for flashes too (an A/B of two ways of analysing them).
  const b = await proberFrom(process.env.PROBER_B);
  const bFlashes = process.env.PROBER_B_FLASHES === "1";
  variants.push({ name: `B (${process.env.PROBER_B}${bFlashes ? ", flashes" : ""})`, go: () => b.probe(input(bFlashes)) });
}
variants.push({ name: "floor: ffprobe, then audio-only ebur128 ‖ full decode (creatives.ts mediaFloor)", go: () => mediaFloor(media) });

const results = new Map<string, { wall: number[]; cpu: number[]; by: Map<string, number[]> }>();
const median = (xs: number[]) => {
  const s = [...xs].sort((x, y) => x - y);
  return s.length ? s[Math.floor((s.length - 1) / 2)]! : NaN;
};
for (let r = 0; r <= rounds; r++) {
  for (const v of variants) {
    // As root the decoders run as an unprivileged user (exec.ts), who must append to the log.
    await writeFile(log, "");
    await chmod(log, 0o666);
    const t = performance.now();
    const out = await v.go();
    const wall = performance.now() - t;
    const lines = (await readFile(log, "utf8")).trim().split("\n").filter(Boolean);
    if (r === 0) {
      // Warm-up round, not counted; say what the probe found.
      const o = out as { error?: string; accessibility?: { maxFlashesPerSecond: number; framesAnalyzed: number } } | undefined;
      console.log(`${v.name}: warm-up ${Math.round(wall)} ms, ${lines.length} processes${o?.error ? `, error ${o.error}` : ""}${o?.accessibility ? `, frames analysed ${o.accessibility.framesAnalyzed}` : ""}`);
      continue;
    }
    const by = new Map<string, number>();
    const byWall = new Map<string, number>();
    let cpu = 0;
    for (const line of lines) {
      const [label, u, s, e] = line.split(" ");
      byWall.set(`${label!} wall`, (byWall.get(`${label!} wall`) ?? 0) + Number(e) * 1000);
      if (!u || Number.isNaN(Number(u))) continue;
      const c = (Number(u) + Number(s)) * 1000;
      cpu += c;
      by.set(label!, (by.get(label!) ?? 0) + c);
    }
    const e = results.get(v.name) ?? { wall: [] as number[], cpu: [] as number[], by: new Map<string, number[]>() };
    e.wall.push(wall);
    e.cpu.push(cpu);
    for (const [k, c] of [...by, ...byWall]) e.by.set(k, [...(e.by.get(k) ?? []), c]);
    results.set(v.name, e);
  }
}
const load = (await readFile("/proc/loadavg", "utf8")).split(" ").slice(0, 3).join(" ");
console.log(`\n${rounds} rounds, alternating; load ${load}; ms p50 (CPU = user + sys of every ffmpeg/ffprobe)`);
for (const [name, e] of results) console.log(`${name}: walls ${e.wall.map(Math.round).join(" ")}; CPU ${e.cpu.map(Math.round).join(" ")}`);
for (const [name, e] of results) {
  const parts = [...e.by].map(([k, xs]) => `${k} ${Math.round(median(xs))}`).join(" / ");
  console.log(`${name}: wall ${Math.round(median(e.wall))}, CPU ${Math.round(median(e.cpu))} (${parts})`);
}
vast.close();
await rm(dir, { recursive: true, force: true });
