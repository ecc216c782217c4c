// What the accessibility step costs (issue 25): the photosensitivity capture (changed frames decoded off the event
// loop) and the accessibility phase (axe-core in every frame, the pause-control probe) on the static tag and on a
// 12 s animation, from the tag scanner's own log lines ("render watch": flash_frames; "tag scanned": phase_ms).
import { b64 } from "../test/harness/stack.ts";
import { scanAttempt } from "./load.ts";
import { records } from "./logs.ts";
import type { Ctx } from "./sections.ts";
import { AD, ANIMATED_12S as ANIMATED } from "./creatives.ts";
import { median, ms } from "./table.ts";

export async function accessibilityCost(ctx: Ctx, rounds = 3): Promise<void> {
  for (const [label, html] of [["static 300x250 tag", AD], ["12 s animation", ANIMATED]] as const) {
    const from = ctx.stack.logs.length;
    for (let i = 0; i < rounds; i++) {
      const a = await scanAttempt(ctx.stack.baseUrl, "/v3/scanTag", { data: b64(html) }, ctx.key)();
      if (!a.ok) return ctx.table.missing(`accessibility cost, ${label}`, a.why);
    }
    const scanned = records(ctx.stack.logs, from, "tag-scanner", "tag scanned");
    const watched = records(ctx.stack.logs, from, "tag-scanner", "render watch");
    if (scanned.length === 0) return ctx.table.missing(`accessibility cost, ${label}`, "no 'tag scanned' log lines");
    const phase = median(scanned.map((r) => r.phase_ms?.accessibility).filter((v): v is number => typeof v === "number"));
    const total = median(scanned.map((r) => r.ms as number));
    const frames = median(watched.map((r) => r.flash_frames).filter((v): v is number => typeof v === "number"));
    ctx.table.add({
      figure: `accessibility, ${label} (n=${scanned.length}): axe + pause probe phase; frames decoded for flashes`,
      value: `${ms(phase)} phase; ${frames} frames`,
      floor: `${ms(total)} whole scan`,
      vs: total > 0 ? `${Math.round((phase / total) * 100)}% of the scan` : "—",
    });
  }
}
