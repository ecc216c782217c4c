// Where scanVideo's video pass spends CPU beyond a bare decode (issue 19), thread by thread: the pass exactly as
// file-video-pass.ts plans it for the bench's 30 s 1920x1080 H.264/AAC file (media-files.ts makeVideo1080), the same
// pass without one of its frame consumers or without its two picture inputs, input 0's decode alone through a graph
// (the pass's decoder threads), and the bench's floor (`ffmpeg -i f -f null -`), in turns (the order reversed every
// other round). Each process's threads are sampled from /proc every 20 ms: ffmpeg 5.1 names none of them, so they are
// told apart by role — the main thread (demuxing, feeding the decoders, every unthreaded filter, the encoders), the
// busiest `fileVideoPassDecodeThreads` others (input 0's frame threads), and the rest (the filter graph's slice thread, the
// picture inputs' decoders, the demuxer threads).
//   node --import tsx bench/video-pass-cpu.ts [rounds] [variant,...]
// Variants: pass, floor, decode, no-analysis, no-interlace, no-bars, no-strip, no-pictures (default: all). Prints each
// run, then per variant the medians of wall, CPU (user + sys), main thread, decoder threads and the rest.
import { spawn } from "node:child_process";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { planFileVideoPass } from "../services/media-prober/src/file-video-pass.ts";
import { flashPlanOf } from "../services/media-prober/src/flash-fields.ts";
import { canCarryPictureCaptions } from "../services/media-prober/src/media-accessibility.ts";
import { readMp4VideoIndex, streamOfIndex } from "../services/media-prober/src/mp4-index.ts";
import { makeVideo1080 } from "./media-files.ts";
import { median } from "./table.ts";

const rounds = Number(process.argv[2] ?? 3);
const dir = await mkdtemp(join(tmpdir(), "cva-video-pass-cpu-"));
const file = await makeVideo1080(dir);
const index = await readMp4VideoIndex(file);
if (!index) throw new Error("the bench file's MP4 index could not be read");
const stream = streamOfIndex(index);
const pixels = index.width * index.height;
const plan = planFileVideoPass({
  input: file, outDir: dir, videoIndex: index.index, duration: index.duration, pixels, keyframes: index.keyframes,
  flash: flashPlanOf(stream, dir), captions: canCarryPictureCaptions(stream),
});
// Input 0's decoder threads: the first `-threads` of the plan (file-limits.ts fileVideoPassDecodeThreads).
const decoders = Number(plan.args[plan.args.indexOf("-threads") + 1]);

/** The pass's graph less the chains that read `drop` (split outputs of input 0, or whole inputs), with their outputs. */
function without(drop: { consumers?: string[]; pictures?: boolean }): string[] {
  const args = [...plan.args];
  const at = args.indexOf("-filter_complex");
  const chains = args[at + 1].split(";");
  const reads = (c: string) => /^\[([^\]]+)\]/.exec(c)?.[1] ?? "";
  const gone = new Set<string>(drop.consumers ?? []);
  // A chain goes when what it reads is gone (or is input 1 or 2); its outputs go with it.
  for (let changed = true; changed; ) {
    changed = false;
    for (const c of chains) {
      const r = reads(c);
      if (gone.has(r) || (drop.pictures && /^[12]:/.test(r))) {
        for (const m of c.matchAll(/\[([^\]]+)\]/g)) if (m.index! > 0 && !gone.has(m[1])) (gone.add(m[1]), (changed = true));
      }
    }
  }
  const kept = chains.filter((c) => !gone.has(reads(c)) && !(drop.pictures && /^[12]:/.test(reads(c))));
  const split = /^\[0:\d+\]split=\d+(.*)$/.exec(kept[0]);
  if (!split) throw new Error("the pass's graph no longer starts with input 0's split");
  const labels = [...split[1].matchAll(/\[([^\]]+)\]/g)].map((m) => m[1]).filter((l) => !gone.has(l));
  kept[0] = kept[0].replace(/split=\d+.*$/, labels.length > 1 ? `split=${labels.length}${labels.map((l) => `[${l}]`).join("")}` : `null[${labels[0]}]`);
  // Outputs: `-map [label] <options> <target>` up to the next -map (or the flash grid's own, or -y).
  const head = args.slice(0, at);
  const tail = args.slice(at + 2);
  const out: string[] = [];
  for (let i = 0; i < tail.length; ) {
    let j = i + 1;
    while (j < tail.length && tail[j] !== "-map" && tail[j] !== "-y") j++;
    const label = tail[i] === "-map" ? tail[i + 1].slice(1, -1) : "";
    if (!gone.has(label)) out.push(...tail.slice(i, j));
    i = j;
  }
  // Inputs 1 and 2 are the second and third `-i`: everything after input 0's `-i <file>` up to the graph.
  const firstInput = head.indexOf("-i") + 2;
  return [...(drop.pictures ? head.slice(0, firstInput) : head), "-filter_complex", kept.join(";"), ...out];
}

const inputOpts = plan.args.slice(plan.args.indexOf("-protocol_whitelist"), plan.args.indexOf("-i") + 2);
const variants: Record<string, string[]> = {
  pass: plan.args,
  floor: ["-nostdin", "-v", "error", "-i", file, "-f", "null", "-"],
  decode: ["-nostdin", "-v", "error", ...inputOpts, "-filter_complex", `[0:${index.index}]null[o]`, "-map", "[o]", "-f", "null", "-"],
  "no-analysis": without({ consumers: ["an"] }),
  "no-interlace": without({ consumers: ["il"] }),
  "no-bars": without({ consumers: ["bars"] }),
  "no-strip": without({ consumers: ["fs"] }),
  "no-pictures": without({ pictures: true }),
};
const chosen = process.argv[3] ? process.argv[3].split(",") : Object.keys(variants);
for (const v of chosen) if (!variants[v]) throw new Error(`unknown variant ${v}`);

const TICK = 100; // USER_HZ: /proc's clock ticks
interface Run { wall: number; cpu: number; main: number; decoders: number; rest: number }

async function threadTimes(pid: number, into: Map<string, number>): Promise<void> {
  const tids = await readdir(`/proc/${pid}/task`).catch(() => [] as string[]);
  for (const tid of tids) {
    const stat = await readFile(`/proc/${pid}/task/${tid}/stat`, "utf8").catch(() => "");
    if (!stat) continue;
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    into.set(tid, (Number(f[11]) + Number(f[12])) / TICK);
  }
}

async function measure(args: string[]): Promise<Run> {
  const t = performance.now();
  const child = spawn("ffmpeg", args, { stdio: ["ignore", "ignore", "ignore"] });
  const threads = new Map<string, number>();
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  let done = false;
  void exited.then(() => (done = true));
  while (!done) {
    await threadTimes(child.pid!, threads);
    await new Promise((r) => setTimeout(r, 20));
  }
  const code = await exited;
  if (code !== 0) throw new Error(`ffmpeg exited ${code}: ${args.join(" ").slice(0, 200)}`);
  const wall = performance.now() - t;
  const main = threads.get(String(child.pid)) ?? 0;
  const others = [...threads].filter(([tid]) => tid !== String(child.pid)).map(([, s]) => s).sort((a, b) => b - a);
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  return { wall, cpu: main + sum(others), main, decoders: sum(others.slice(0, decoders)), rest: sum(others.slice(decoders)) };
}

const results = new Map<string, Run[]>(chosen.map((v) => [v, []]));
for (let r = 0; r < rounds; r++) {
  for (const v of r % 2 === 0 ? chosen : [...chosen].reverse()) {
    const m = await measure(variants[v]);
    results.get(v)!.push(m);
    const load = (await readFile("/proc/loadavg", "utf8")).split(" ")[0];
    console.log(`round ${r + 1} ${v.padEnd(13)} wall ${(m.wall / 1000).toFixed(2)} s, CPU ${m.cpu.toFixed(2)} (main ${m.main.toFixed(2)}, decoders ${m.decoders.toFixed(2)}, rest ${m.rest.toFixed(2)}), load ${load}`);
  }
}
console.log(`\nmedians of ${rounds} (CPU-s; ${decoders} decoder threads on input 0 of the pass):`);
for (const [v, runs] of results) {
  const med = (k: keyof Run) => median(runs.map((x) => x[k]));
  console.log(`${v.padEnd(13)} wall ${(med("wall") / 1000).toFixed(2)} s  CPU ${med("cpu").toFixed(2)}  main ${med("main").toFixed(2)}  decoders ${med("decoders").toFixed(2)}  rest ${med("rest").toFixed(2)}`);
}
await rm(dir, { recursive: true, force: true });
