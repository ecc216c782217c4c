import { createMemoryArtifactSink } from "@cva/platform";
import { describe, expect, it } from "vitest";
import { clickPointField, filmStripField } from "../src/fields/film-strip.ts";
import { storeFilmStrip } from "../src/film-strip-images.ts";
import { gatherFilmStrip, pickFilmStrip, STRIP_FRAMES } from "../src/gatherers/film-strip.ts";
import type { LandingArtifact } from "../src/gatherers/landing-page.ts";
import type { LayoutArtifact } from "../src/gatherers/layout.ts";
import type { ScreencastFrame } from "../src/gatherers/screencast.ts";

// The tag's film strip and click point (issue 26), from what the scan gathers: screencast frames fed as Chromium sends
// them (the gatherer's only input), the layout probe's click point and the click-through's outcome.

/** A screencast stand-in: the film strip only registers a reader of its frames. */
function fakeScreencast() {
  let reader: ((f: ScreencastFrame) => void) | undefined;
  const screencast = { onFrame: (r: (f: ScreencastFrame) => void) => { reader = r; } };
  // An unchanged frame carries the previous frame's bytes, as Chromium encodes identical pixels.
  let prev = "";
  const send = (at: number, changed = true, tag = String(at), receivedAt = at + 5) => {
    const data = changed ? Buffer.from(`jpeg-${tag}`).toString("base64") : prev;
    prev = data;
    reader?.({ data, capturedAt: at, receivedAt, changed });
  };
  return { screencast: screencast as unknown as Parameters<typeof gatherFilmStrip>[0], send };
}

describe("film strip", () => {
  it("a 12 s animation at 60 changed frames a second: 8 frames from its first to its last, evenly spread, bounded memory", () => {
    const { screencast, send } = fakeScreencast();
    const g = gatherFilmStrip(screencast);
    const t0 = 1_000_000;
    send(t0 - 50); // before the render: the prepared page's frames are not the creative's
    g.beginRender();
    send(t0 - 10); // the first frame of the render: the page before the creative drew, not in the strip
    for (let i = 0; i <= 720; i++) send(t0 + Math.round((i * 1000) / 60));
    send(t0 + 12_500, false); // unchanged frames are not kept
    g.endRender();
    send(t0 + 13_000); // after the render: the click-through's
    expect(g.artifact.kept.length).toBeLessThanOrEqual(65);
    const picked = pickFilmStrip(g.artifact.kept);
    expect(picked).toHaveLength(STRIP_FRAMES);
    expect(picked[0]!.at).toBe(t0);
    expect(picked[picked.length - 1]!.at).toBe(t0 + 12_000);
    const gaps = picked.slice(1).map((p, i) => p.at - picked[i]!.at);
    // 12 s over 7 gaps is 1 714 ms; the kept frames are at most a few hundred ms apart.
    for (const g of gaps) expect(Math.abs(g - 12_000 / 7)).toBeLessThan(500);
  });

  it("a creative that draws once: one frame; the last changed frame is kept even when the sampling skipped it", () => {
    const { screencast, send } = fakeScreencast();
    const still = gatherFilmStrip(screencast);
    still.beginRender();
    send(1_900); // the blank page
    send(2_000);
    send(2_030, false);
    still.endRender();
    expect(pickFilmStrip(still.artifact.kept).map((f) => f.at)).toEqual([2_000]);

    const b = fakeScreencast();
    const short = gatherFilmStrip(b.screencast);
    short.beginRender();
    b.send(4_900); // the blank page
    b.send(5_000);
    b.send(5_040); // 40 ms later: under the sampling gap, but the resting state
    short.endRender();
    expect(short.artifact.kept.map((f) => f.at)).toEqual([5_000, 5_040]);
  });

  it("frames that arrive out of capture order (an unsequenced encoder): the blank page captured first is still left out", () => {
    const { screencast, send } = fakeScreencast();
    const g = gatherFilmStrip(screencast);
    g.beginRender();
    // The creative's first frame (captured at 20 100) arrives before the blank page captured at 20 000.
    send(20_100, true, "creative-1", 20_130);
    send(20_000, true, "blank", 20_140);
    send(20_300, true, "creative-2", 20_310);
    send(20_600, true, "creative-3", 20_610);
    send(20_650, true, "creative-3", 20_660); // the same pixels as the frame captured before it: not a change
    send(20_900, true, "creative-4", 20_905);
    g.endRender();
    expect(g.artifact.kept.map((f) => [f.at, f.jpeg.toString()])).toEqual([
      [20_100, "jpeg-creative-1"], [20_300, "jpeg-creative-2"], [20_600, "jpeg-creative-3"], [20_900, "jpeg-creative-4"],
    ]);
  });

  it("stored as artifacts with each frame's time after the render start; the report field carries them as JPEG images", async () => {
    const { screencast, send } = fakeScreencast();
    const g = gatherFilmStrip(screencast);
    g.beginRender();
    for (const t of [10_000, 10_100, 10_600, 11_400]) send(t);
    g.endRender();
    const artifacts = createMemoryArtifactSink();
    const stored = await storeFilmStrip(artifacts, g.artifact, 10_000);
    expect(stored.map((f) => f.timeMs)).toEqual([100, 600, 1_400]);
    expect(artifacts.get(stored[1]!.id)?.data.toString()).toBe("jpeg-10600");
    const field = filmStripField(stored);
    expect(field.map((f) => [Number(f.timeMs), f.image?.mimeType, Number(f.image?.bytes)])).toEqual([[100, "image/jpeg", 10], [600, "image/jpeg", 10], [1_400, "image/jpeg", 10]]);
    expect(await storeFilmStrip(artifacts, g.artifact, undefined)).toEqual([]);
  });
});

describe("click point", () => {
  const layout = (over: Partial<LayoutArtifact> = {}): LayoutArtifact => ({
    box: { x: 20, y: 100, width: 300, height: 250 }, ownBox: null, scroll: { x: 0, y: 40 }, click: { x: 170, y: 185 },
    viewport: { width: 1366, height: 768 }, adSizeMeta: null, ...over,
  });
  const landing = (evidence: string, tab: LandingArtifact["tab"] = "new_tab"): LandingArtifact => ({ tab, url: "", title: "", working: true, evidence });

  it("the layout probe's point in viewport px, and in the screenshot (box in document px, plus the scroll)", () => {
    const p = clickPointField(landing("new tab opened"), layout());
    expect(p && { x: p.x, y: p.y, sx: p.screenshotX, sy: p.screenshotY, inside: p.insideScreenshot }).toEqual({ x: 170, y: 185, sx: 150, sy: 125, inside: true });
    const outside = clickPointField(landing("click handlers finished", "none"), layout({ click: { x: 5, y: 5 } }));
    expect(outside?.insideScreenshot).toBe(false);
  });

  it("no click, no point: nothing to click, no time left, no click-through at all", () => {
    expect(clickPointField(landing("nothing to click", "none"), layout())).toBeUndefined();
    expect(clickPointField(landing("no time left before the job's deadline", "none"), layout())).toBeUndefined();
    expect(clickPointField(undefined, layout())).toBeUndefined();
    expect(clickPointField(landing("new tab opened"), layout({ click: null }))).toBeUndefined();
  });
});
