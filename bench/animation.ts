// What watching an animation to its last frame costs (issue 21): a banner that moves for 12 s, end to end through
// the edge, beside its floor — the warm browser's floor for the same page plus the 12 s that any tool reporting the
// animation's end must watch in real time. The difference is what the scan adds to proving the end.
import { b64 } from "../test/harness/stack.ts";
import { floorScan, type FloorBrowser } from "./browser-floor.ts";
import { AD_BOX, ANIMATED_12S } from "./creatives.ts";
import { scanAttempt } from "./load.ts";
import { TAG_SCANNED, phaseMedians, records } from "./logs.ts";
import type { Ctx } from "./sections.ts";
import { ms, pct, plusMs } from "./table.ts";

const MOTION_MS = 12_000;
const PAGE = `<!doctype html><html><body style="margin:0">${ANIMATED_12S}</body></html>`;

export async function animationVsFloor(ctx: Ctx, floor: FloorBrowser, rounds = 3): Promise<void> {
  const scans: number[] = [];
  const floors: number[] = [];
  const reported: number[] = [];
  const from = ctx.stack.logs.length;
  for (let i = 0; i < rounds; i++) {
    floors.push((await floorScan(floor.browser, PAGE, AD_BOX)) + MOTION_MS);
    const t = performance.now();
    const a = await scanAttempt(ctx.stack.baseUrl, "/v3/scanTag", { data: b64(ANIMATED_12S) }, ctx.key)();
    if (!a.ok) return ctx.table.missing("12 s animation, p50 end to end", a.why);
    scans.push(performance.now() - t);
    const d = (a.value as { animation_duration?: number } | undefined)?.animation_duration;
    if (typeof d === "number") reported.push(d);
  }
  const [p50, f50] = [pct(scans, 50), pct(floors, 50)];
  // Where the time past the motion goes, from the scanner's own log.
  const ph = phaseMedians(records(ctx.stack.logs, from, ...TAG_SCANNED));
  const phases = ph.render === undefined ? "" : `; phase_ms medians render ${ph.render} / measure ${ph.measure} / accessibility ${ph.accessibility} / landing ${ph.landing}`;
  ctx.table.add({
    figure: `12 s CSS animation (six 2 s slides), 1 client, p50 end to end (n=${rounds})`,
    value: `${ms(p50)}; animation_duration ${reported.map((v) => ms(v)).join(" / ") || "not read"}${phases}`,
    floor: `${ms(f50)} warm-browser floor of the same page + its 12 s of motion`,
    vs: plusMs(p50, f50),
  });
}
