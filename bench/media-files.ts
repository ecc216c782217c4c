// The raw-file scans (issue 19): scanVideo beside a full decode of the same file, scanImage's p50, and the edge's
// memory while a large upload streams through it.
import { execFile } from "node:child_process";
import { openAsBlob, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { EDGE_SCAN_DONE, phaseMedians, records } from "./logs.ts";
import type { Ctx } from "./sections.ts";
import { median, ms, pct, ratio } from "./table.ts";

const run = promisify(execFile);

/** A 30 s 1920x1080 30 fps H.264 (x264 veryfast, 6 Mb/s) + AAC file: a typical CTV/pre-roll master's shape. */
export async function makeVideo1080(dir: string): Promise<string> {
  const file = join(dir, "spot-1080p.mp4");
  await run("ffmpeg", [
    "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=30:duration=30", "-f", "lavfi", "-i", "sine=frequency=440:duration=30",
    "-c:v", "libx264", "-preset", "veryfast", "-b:v", "6000k", "-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "192k",
    "-movflags", "+faststart", "-shortest", "-y", file,
  ], { timeout: 300_000 });
  return file;
}

/** The floor of a video file scan: one full decode of the same file (`ffmpeg -i f -f null -`). */
async function decodeFloor(file: string): Promise<number> {
  const t = performance.now();
  await run("ffmpeg", ["-nostdin", "-v", "error", "-i", file, "-f", "null", "-"], { timeout: 600_000 });
  return performance.now() - t;
}

/** One multipart upload to a raw-file endpoint; ms to the report, or why not. */
async function upload(ctx: Ctx, path: string, file: string, mime: string, name: string): Promise<number | string> {
  const form = new FormData();
  form.set("spec_id", "0");
  form.set("name", name);
  form.set("file", new File([await openAsBlob(file)], name, { type: mime }));
  const t = performance.now();
  const res = await fetch(`${ctx.stack.baseUrl}${path}`, { method: "POST", headers: { "x-apikey": ctx.key }, body: form }).catch((e: Error) => e);
  if (res instanceof Error) return res.message;
  const body = await res.text();
  return res.status === 200 ? performance.now() - t : `${res.status} ${body.slice(0, 160)}`;
}

/** scanVideo of the 30 s 1080p file, alternating with its decode floor. */
export async function videoFileVsFloor(ctx: Ctx, file: string, rounds = 3): Promise<void> {
  const warm = await upload(ctx, "/v3/scanVideo", file, "video/mp4", "spot-1080p.mp4");
  if (typeof warm === "string") return ctx.table.missing("scanVideo p50", warm, "≤ 1.3× floor");
  const scans: number[] = [];
  const floors: number[] = [];
  const from = ctx.stack.logs.length;
  for (let i = 0; i < rounds; i++) {
    floors.push(await decodeFloor(file));
    const r = await upload(ctx, "/v3/scanVideo", file, "video/mp4", "spot-1080p.mp4");
    if (typeof r === "number") scans.push(r);
  }
  const [v50, f50] = [median(scans), median(floors)];
  ctx.table.add({
    figure: "scanVideo, 30 s 1920x1080 H.264/AAC (multipart), 1 client, p50",
    value: ms(v50),
    floor: `${ms(f50)} ffmpeg -i f -f null - (full decode)`,
    vs: ratio(v50, f50),
    goal: "≤ 1.3× floor",
    met: v50 <= 1.3 * f50,
  });
  // Where the scan's time went, from the file job's own log line (media-prober README, "Raw video and audio files").
  const recs = records(ctx.stack.logs, from, "media-prober", "file measured").filter((r) => r.kind === "video");
  if (recs.length === 0) return ctx.table.missing("file job phase_ms medians", "no 'file measured' log lines");
  const ph = phaseMedians(recs);
  const job = median(recs.map((r) => r.ms as number));
  // The video pass started beside ffprobe from the MP4's index and was kept (its video_pass then overlaps probe).
  const early = recs.filter((r) => r.early_pass === "kept").length;
  ctx.table.add({
    figure: `scanVideo file job log phase_ms medians (n=${recs.length})`,
    value: Object.entries(ph).map(([k, v]) => `${k} ${Math.round(v)}`).join(" / ") + ` ms; early pass kept ${early}/${recs.length}`,
    floor: "—",
    vs: `${ms(job)} in the job of ${ms(v50)} end to end`,
  });
  // The serial chain around the job, from the edge's "scan done" line: its dispatched scan less the job's own time is
  // the NATS dispatch and reply hops; end to end less the edge's phases is the multipart door (receiving the upload and
  // storing it in the uploads bucket) and authentication.
  const edge = records(ctx.stack.logs, from, ...EDGE_SCAN_DONE).filter((r) => r.report_kind === "video_v3");
  if (edge.length === 0) return;
  const e = phaseMedians(edge);
  const edgeMs = (e.reserve ?? 0) + (e.scan ?? 0) + (e.render ?? 0) + (e.store ?? 0) + (e.commit ?? 0);
  ctx.table.add({
    figure: `scanVideo edge log phase_ms medians (n=${edge.length})`,
    value: `reserve ${e.reserve} / scan ${e.scan} / render ${e.render} / store ${e.store} / commit ${e.commit} ms`,
    floor: "—",
    vs: `dispatch + reply hops ${ms((e.scan ?? 0) - job)}, upload door + auth ${ms(v50 - edgeMs)}`,
  });
}

/** scanImage of a 300x250 PNG sent as JSON `data`, one client. */
export async function imageP50(ctx: Ctx, dir: string, rounds = 12): Promise<void> {
  const file = join(dir, "ad.png");
  await run("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=300x250", "-frames:v", "1", "-y", file]);
  const png = readFileSync(file);
  const body = JSON.stringify({ spec_id: 0, name: "ad.png", data: png.toString("base64") });
  const once = async (): Promise<number | string> => {
    const t = performance.now();
    const res = await fetch(`${ctx.stack.baseUrl}/v3/scanImage`, { method: "POST", headers: { "x-apikey": ctx.key, "content-type": "application/json" }, body });
    const text = await res.text();
    return res.status === 200 ? performance.now() - t : `${res.status} ${text.slice(0, 160)}`;
  };
  const warm = await once();
  if (typeof warm === "string") return ctx.table.missing("scanImage p50", warm, "≤ 150 ms");
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const r = await once();
    if (typeof r === "number") times.push(r);
  }
  const p50 = pct(times, 50);
  ctx.table.add({ figure: "scanImage, 300x250 PNG (JSON data), 1 client, p50", value: ms(p50), floor: "—", vs: "—", goal: "≤ 150 ms", met: p50 <= 150 });
}

const rssKb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);

/**
 * The edge's resident memory while a 300 MB file streams through it to storage (multipart): sampled every 50 ms
 * from before the upload to its answer. The file need not be a valid video: what is measured is the edge's memory,
 * not the scan's verdict.
 */
export async function uploadRss(ctx: Ctx, dir: string): Promise<void> {
  const pid = ctx.stack.pids().get("edge");
  if (!pid) return ctx.table.missing("edge RSS during a 300 MB upload", "no edge process id", "growth < 64 MB");
  const file = join(dir, "big.mp4");
  await run("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=2", "-c:v", "libx264", "-y", file]);
  const head = readFileSync(file);
  const big = join(dir, "big-300mb.mp4");
  writeFileSync(big, Buffer.concat([head, Buffer.alloc(300 * 1024 * 1024 - head.length)]));
  const before = rssKb(pid);
  let peak = before;
  const timer = setInterval(() => { peak = Math.max(peak, rssKb(pid)); }, 50);
  const r = await upload(ctx, "/v3/scanVideo", big, "video/mp4", "big.mp4");
  clearInterval(timer);
  ctx.table.add({
    figure: "edge peak RSS during a 300 MB multipart upload",
    value: `${Math.round(peak / 1024)} MB (+${Math.round((peak - before) / 1024)} MB)`,
    floor: `${Math.round(before / 1024)} MB before`,
    vs: typeof r === "number" ? `answered in ${ms(r)}` : `answered ${r.slice(0, 40)}`,
    goal: "growth < 64 MB",
    met: peak - before < 64 * 1024,
  });
}
