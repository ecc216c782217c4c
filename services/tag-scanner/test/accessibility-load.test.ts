// The heavy accessibility rows (load project: each render lasts over 20 s): a 20 s slide loop with and without a
// pause button (WCAG 2.2.2). Both scans run at once on one browser.
import { Accessibility_PauseControl } from "@cva/contracts";
import { createMemoryArtifactSink, createOutboundPolicy } from "@cva/platform";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createBrowserPool, createTagScanner, type BrowserPool, type TagScanner } from "../src/index.ts";
import { tagJob } from "./helpers.ts";

let pool: BrowserPool;
let scanner: TagScanner;
beforeAll(async () => {
  pool = createBrowserPool({ browsers: 1, slots: 2 });
  scanner = createTagScanner({
    pool, artifacts: createMemoryArtifactSink(), location: "usa", policy: createOutboundPolicy(["127.0.0.0/8"]),
    timeouts: { renderMs: 40_000, stepMs: 5_000, landingMs: 6_000 },
  });
});
afterAll(async () => {
  await pool?.close();
});

/** Two slides alternating every 500 ms, 20 times (20 s), then still. */
const loop20 = (button: string) => `<div style="width:300px;height:250px;background:#fff;position:relative;overflow:hidden">
<div id="slide" style="position:absolute;left:0;top:0;width:100px;height:100px;background:#036;animation:mv 1s step-end 20"></div>${button}
</div><style>@keyframes mv{0%{left:0}50%{left:150px}}</style>
<script>const p = document.getElementById("p"); if (p) p.onclick = () => { document.getElementById("slide").style.animationPlayState = "paused"; };</script>`;

it("a 20 s loop: over 5 s of motion; its pause button is found (the loop had ended before it could be tried), none is missing", async () => {
  const [withButton, without] = await Promise.all([
    scanner.scan(tagJob(loop20(`<button id="p" style="position:absolute;right:4px;bottom:4px">Pause</button>`))),
    scanner.scan(tagJob(loop20(""))),
  ]);
  for (const r of [withButton, without]) {
    expect(Number(r.animationDurationMs)).toBeGreaterThan(15_000);
    expect(r.accessibility?.motionOver5s).toBe(true);
    expect(r.accessibility?.flashRisk).toBe(false);
  }
  expect(withButton.accessibility?.pauseControl).toBe(Accessibility_PauseControl.NOT_VERIFIED);
  expect(withButton.accessibility?.pauseControlName).toBe("Pause");
  expect(without.accessibility?.pauseControl).toBe(Accessibility_PauseControl.MISSING);
}, 120_000);
