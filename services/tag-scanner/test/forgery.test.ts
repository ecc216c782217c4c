// A creative that tries to write its own report: layout and motion probes run in isolated worlds, the creative's
// world is instrumented before it runs (every realm, script-made iframes included) and the report channel is hidden.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BrowserPool, TagScanner } from "../src/index.ts";
import { createTestScanner, send, startFixtureServer, tagJob, PIXEL_GIF } from "./helpers.ts";
import { sharedBrowserPool } from "./shared-pool.ts";

let pool: BrowserPool;
let scanner: TagScanner;
let fixture: Awaited<ReturnType<typeof startFixtureServer>>;

beforeAll(async () => {
  ({ pool, scanner } = createTestScanner(12_000, sharedBrowserPool(2)));
  fixture = await startFixtureServer({ "/found": send("image/gif", PIXEL_GIF) });
});
afterAll(async () => {
  await fixture?.close();
  await pool?.close();
});

const ms = (v: bigint) => Number(v);

describe("a creative cannot forge its report", () => {
  it("lying DOM and timing APIs in its own world change nothing", async () => {
    const html = `<style>@keyframes slide { to { transform: translateX(200px) } } #b { width: 60px; height: 60px; background: #0a0; animation: slide 2s linear forwards; }</style>
<div style="width:300px;height:250px;background:#eee;overflow:hidden"><div id="b"></div></div>
<script>
Element.prototype.getBoundingClientRect = () => ({ left: 0, top: 0, right: 1, bottom: 1, width: 1, height: 1, x: 0, y: 0 });
Element.prototype.getClientRects = () => [];
document.querySelectorAll = () => [];
Document.prototype.querySelectorAll = () => [];
Document.prototype.getAnimations = () => [];
window.getComputedStyle = () => ({});
performance.now = () => 0;
Object.defineProperty(Performance.prototype, "timeOrigin", { get: () => 0 });
</script>`;
    const r = await scanner.scan(tagJob(html));
    expect(r.dimensions).toMatchObject({ width: 300, height: 250 });
    expect(ms(r.animationDurationMs)).toBeGreaterThanOrEqual(1_600);
    expect(ms(r.animationDurationMs)).toBeLessThanOrEqual(2_600);
  });

  it("work scheduled through a script-made iframe's timers is seen", async () => {
    // The swap happens 2.5 s in: without seeing the iframe's pending timer the watch would end at once with 0.
    const html = `<div id="b" style="width:300px;height:250px;background:#00f"></div>
<script>
const f = document.createElement("iframe");
f.style.display = "none";
document.body.appendChild(f);
frames[0].setTimeout(() => { document.getElementById("b").style.background = "#0f0"; }, 2500);
</script>`;
    const r = await scanner.scan(tagJob(html));
    expect(ms(r.animationDurationMs)).toBeGreaterThanOrEqual(2_100);
    expect(ms(r.animationDurationMs)).toBeLessThanOrEqual(3_200);
  });

  it("paint timing redefined by the creative does not move its time to visual start", async () => {
    // Nothing is painted for 1.5 s; the creative makes every paint entry claim it happened at time 0.
    const html = `<script>
for (const [proto, names] of [[PerformanceEntry.prototype, ["startTime"]], [PerformancePaintTiming.prototype, ["paintTime", "presentationTime"]]])
  for (const n of names) Object.defineProperty(proto, n, { get: () => 0 });
setTimeout(() => { document.body.innerHTML = '<div style="width:300px;height:250px;background:#c00"></div>'; }, 1500);
</script>`;
    const r = await scanner.scan(tagJob(html));
    expect(r.creativeRendered).toBe(true);
    expect(ms(r.timeToVisualStartMs)).toBeGreaterThanOrEqual(1_400);
  });

  it("the report channel cannot be found or called from the page", async () => {
    // The creative looks for any global it did not create, calls each function with forged messages, and says
    // how many it found (a forged "pending timer" report would hold the watch to the time-out).
    const html = `<div style="width:300px;height:250px;background:#c00"></div>
<script>
let found = 0;
for (const k of Object.getOwnPropertyNames(window)) {
  if (!/^__/.test(k)) continue;
  found++;
  try { window[k](JSON.stringify({ t: "motion", realm: "forged", pending: 99, intervals: 9, intervalPeriod: 60000, raf: Date.now() + 1e9, chainPeriod: 0, afterClick: 0 })); } catch (e) {}
}
new Image().src = "${fixture.origin}/found?n=" + found;
</script>`;
    const r = await scanner.scan(tagJob(html));
    const hit = fixture.seen.find((s) => s.url.startsWith("/found"));
    expect(hit?.url).toBe("/found?n=0");
    expect(ms(r.animationDurationMs)).toBeLessThan(200);
    expect(r.creativeRendered).toBe(true);
  });
});
