// The bench's figures, each measured beside its floor. Where a figure and its floor can alternate (one of each per
// round) they do, so that load from anything else on the machine falls on both alike.
import http from "node:http";
import type { AddressInfo } from "node:net";
import autocannon from "autocannon";
import type { TestStack } from "../test/harness/stack.ts";
import { floorScan, type FloorBrowser } from "./browser-floor.ts";
import { untilIdle } from "./cpu.ts";
import { AD_BOX, AD_PAGE, TAG_BODY, ZIP_BODY, mediaFloor } from "./creatives.ts";
import { scanAttempt } from "./load.ts";
import { EDGE_SCAN_DONE, MEDIA_PROBED, TAG_SCANNED, phaseMedians, records } from "./logs.ts";
import { type BenchTable, median, ms, pct, plusMs, ratio } from "./table.ts";

export interface Ctx {
  table: BenchTable;
  stack: TestStack;
  key: string;
}

export async function edgeRejects({ table, stack }: Ctx): Promise<void> {
  const fire = (url: string) =>
    new Promise<autocannon.Result>((resolve, reject) =>
      autocannon({ url, method: "POST", connections: 20, duration: 5, headers: { "content-type": "application/json" }, body: "{}" }, (err, res) => (err ? reject(err) : resolve(res))),
    );
  // Floor: the smallest possible Node HTTP server answering the same 401 body.
  const bare = http.createServer((_, res) => {
    res.writeHead(401, { "content-type": "application/json" });
    res.end('{"error_type":"authentication_error","message":"X-ApiKey header is missing"}');
  });
  await new Promise<void>((r) => bare.listen(0, "127.0.0.1", r));
  const base = await fire(`http://127.0.0.1:${(bare.address() as AddressInfo).port}/v3/scanTag`);
  bare.close();
  const edge = await fire(`${stack.baseUrl}/v3/scanTag`);
  const e = edge.requests.average;
  const b = base.requests.average;
  table.add({
    figure: "edge: unauthenticated rejects/s (20 connections)",
    value: `${num(e)} req/s (p99 ${edge.latency.p99} ms)`,
    floor: `${num(b)} req/s bare node:http`,
    vs: ratio(e, b),
    goal: "≥ 0.5× floor",
    met: e >= 0.5 * b,
  });
}

async function scanOnce(ctx: Ctx, path: string, body: object): Promise<number | string> {
  const t = performance.now();
  const a = await scanAttempt(ctx.stack.baseUrl, path, body, ctx.key)();
  return a.ok ? performance.now() - t : a.why;
}

/** Static v3 tag, one client, end to end through the edge; beside it the browser floor; then the scan log's phases. */
export async function tagVsFloor(ctx: Ctx, floor: FloorBrowser, rounds = 12): Promise<number | undefined> {
  const { table, stack } = ctx;
  for (let i = 0; i < 2; i++) {
    const w = await scanOnce(ctx, "/v3/scanTag", TAG_BODY);
    if (typeof w === "string") {
      table.missing("static v3 tag scan", w);
      return undefined;
    }
    await floorScan(floor.browser, AD_PAGE, AD_BOX);
  }
  const from = stack.logs.length;
  const tag: number[] = [];
  const base: number[] = [];
  const failures: string[] = [];
  const scanner = stack.pids().get("tag-scanner");
  const waited: number[] = [];
  for (let i = 0; i < rounds; i++) {
    // The floor on idle cores: not beside the page the last scan's slot builds once it has answered.
    if (scanner !== undefined) waited.push(await untilIdle({ name: "tag-scanner", pid: scanner }));
    base.push(await floorScan(floor.browser, AD_PAGE, AD_BOX));
    const r = await scanOnce(ctx, "/v3/scanTag", TAG_BODY);
    if (typeof r === "number") tag.push(r);
    else failures.push(r);
  }
  const [p50, p95, f50, f95] = [pct(tag, 50), pct(tag, 95), pct(base, 50), pct(base, 95)];
  const idle = waited.length ? `, each once the scanner was idle (waited p50 ${ms(pct(waited, 50))})` : "";
  const floorWhat = `new incognito context + setContent + screenshot + close, running Chromium${idle}`;
  const fails = failures.length ? ` (${failures.length} failed: ${failures[0]})` : "";
  table.add({
    figure: "static 300x250 v3 tag, 1 client, p50 end to end",
    value: ms(p50) + fails,
    floor: `${ms(f50)} ${floorWhat}`,
    vs: plusMs(p50, f50),
    goal: "≤ floor + 250 ms",
    met: p50 <= f50 + 250,
  });
  table.add({ figure: "static 300x250 v3 tag, 1 client, p95 end to end", value: ms(p95), floor: ms(f95), vs: plusMs(p95, f95) });

  const recs = records(stack.logs, from, ...TAG_SCANNED);
  if (recs.length === 0) {
    table.missing("tag scan phase_ms medians", "no 'tag scanned' log lines (LOG_LEVEL above info?)", "setup ≤ 30 ms");
    return p50;
  }
  const ph = phaseMedians(recs);
  const inScanner = median(recs.map((r) => r.ms as number));
  table.add({
    figure: `tag scan log phase_ms medians (n=${recs.length})`,
    value: `setup ${ph.setup} / render ${ph.render} / measure ${ph.measure} / accessibility ${ph.accessibility} / landing ${ph.landing} ms`,
    floor: "—",
    vs: "—",
    goal: "setup ≤ 30 ms",
    met: ph.setup !== undefined && ph.setup <= 30,
  });
  // The measuring phases step by step (the scan log's steps_ms): where the gap to the floor is, without a profiler.
  const st = phaseMedians(recs, "steps_ms");
  table.add({
    figure: `tag scan log steps_ms medians (n=${recs.length})`,
    value: Object.entries(st).map(([k, v]) => `${k} ${v}`).join(" / ") + " ms",
    floor: "—",
    vs: "—",
  });
  table.add({
    figure: "tag scan: in the scanner vs end to end (p50)",
    value: `${ms(inScanner)} scan log ms`,
    floor: `${ms(p50)} end to end`,
    vs: `${plusMs(p50, inScanner).replace("+", "")} edge, queue, report, store`,
  });
  // The edge's own split of the end-to-end time (its "scan done" log): reservation, the dispatched scan (queue, worker,
  // result), rendering the report, storing it, committing the charge.
  const edge = records(stack.logs, from, ...EDGE_SCAN_DONE).filter((r) => r.report_kind === "tag_v3");
  if (edge.length > 0) {
    const e = phaseMedians(edge);
    table.add({
      figure: `edge log phase_ms medians, tag (n=${edge.length})`,
      value: `reserve ${e.reserve} / scan ${e.scan} / render ${e.render} / store ${e.store} / commit ${e.commit} ms`,
      floor: `${ms(inScanner)} in the scanner`,
      vs: "—",
    });
  }
  return p50;
}

/** Zip and tag alternately, same creative, one client. */
export async function zipVsTag(ctx: Ctx, rounds = 8): Promise<void> {
  const w = await scanOnce(ctx, "/v2/scanZip", ZIP_BODY);
  if (typeof w === "string") return ctx.table.missing("zip scan p50", w, "≤ tag + 150 ms");
  const zip: number[] = [];
  const tag: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const z = await scanOnce(ctx, "/v2/scanZip", ZIP_BODY);
    if (typeof z === "number") zip.push(z);
    const t = await scanOnce(ctx, "/v3/scanTag", TAG_BODY);
    if (typeof t === "number") tag.push(t);
  }
  const [z50, t50] = [median(zip), median(tag)];
  ctx.table.add({
    figure: "zip (same creative, ad.size frame), 1 client, p50",
    value: ms(z50),
    floor: `${ms(t50)} static v3 tag, alternating`,
    vs: plusMs(z50, t50),
    goal: "≤ tag + 150 ms",
    met: z50 <= t50 + 150,
  });
}

/** VAST with one media file, one client, alternating with the media floor; then the media probe's phases. */
export async function vastVsFloor(ctx: Ctx, vastUrl: string, media: string, rounds = 7): Promise<void> {
  const { table, stack } = ctx;
  const body = { data: Buffer.from(vastUrl).toString("base64") };
  const w = await scanOnce(ctx, "/v3/scanVAST", body);
  if (typeof w === "string") return table.missing("VAST scan p50", w, "≤ 1.5× floor");
  await mediaFloor(media);
  const from = stack.logs.length;
  const vast: number[] = [];
  const base: number[] = [];
  for (let i = 0; i < rounds; i++) {
    base.push(await mediaFloor(media));
    const r = await scanOnce(ctx, "/v3/scanVAST", body);
    if (typeof r === "number") vast.push(r);
  }
  const [v50, f50] = [median(vast), median(base)];
  table.add({
    figure: "VAST, one 15 s 1280x720 H.264/AAC file, 1 client, p50",
    value: ms(v50),
    floor: `${ms(f50)} ffprobe, then audio-only ebur128 ‖ full video decode (the flash rendition)`,
    vs: ratio(v50, f50),
    goal: "≤ 1.5× floor",
    met: v50 <= 1.5 * f50,
  });
  const recs = records(stack.logs, from, ...MEDIA_PROBED);
  if (recs.length === 0) return table.missing("media probe phase_ms medians", "no 'media probed' log lines");
  const ph = phaseMedians(recs);
  const probe = median(recs.map((r) => r.ms as number));
  table.add({
    figure: `media probe log phase_ms medians (n=${recs.length})`,
    // flash: the WCAG 2.3.1 pass on the rendition the VAST analyzer flags (the bench's only file), beside the other two.
    value: `download ${ph.download} / ffprobe ${ph.probe} / packets ${ph.packets} / audio ${ph.audio_pass} ‖ video ${ph.video_pass}${ph.flash_pass !== undefined ? ` ‖ flash ${ph.flash_pass}` : ""} / store ${ph.store} ms`,
    floor: "—",
    vs: "—",
  });
  table.add({
    figure: "VAST: in the media prober vs end to end (p50)",
    value: `${ms(probe)} probe log ms`,
    floor: `${ms(v50)} end to end`,
    vs: `${plusMs(v50, probe).replace("+", "")} edge, VAST fetch, queue, report`,
  });
}

const num = (n: number) => Math.round(n).toLocaleString("en").replace(/,/g, " ");
