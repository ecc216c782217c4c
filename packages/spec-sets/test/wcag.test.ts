import { create } from "@bufbuild/protobuf";
import { Accessibility_PauseControl, MediaAccessibilitySchema, TestOutcome, VastCreativeSchema, type ScanResults } from "@cva/contracts";
import { describe, expect, it } from "vitest";
import { evaluateTag } from "../src/index.ts";
import { tagReport } from "./fixtures.ts";

const find = (r: ScanResults, test: string) => r.tests.find((t) => t.test === test)!;
const base = {
  flashesJudged: true, rulesChecked: ["image-alt", "link-name", "button-name", "color-contrast"], pauseControl: Accessibility_PauseControl.NOT_NEEDED,
};

describe("spec set 3 (WCAG 2.2 accessibility)", () => {
  it("runs the five tests, each citing its success criterion", () => {
    const r = evaluateTag(tagReport({ accessibility: base }), 3);
    expect(r.tests.map((t) => t.test).sort()).toEqual(["exit_name", "image_alt", "motion_pause", "photosensitivity", "text_contrast"]);
    expect(find(r, "photosensitivity").source).toContain("2.3.1");
    expect(find(r, "motion_pause").source).toContain("2.2.2");
    expect(find(r, "image_alt").source).toContain("1.1.1");
    expect(find(r, "exit_name").source).toMatch(/2\.4\.4.*4\.1\.2/);
    expect(find(r, "text_contrast").source).toContain("1.4.3");
    expect(r.failed).toBe(0);
  });

  it("photosensitivity: more than three flashes fail with when; a pass from frames that may be missing is not evaluated", () => {
    const fail = find(evaluateTag(tagReport({ accessibility: { ...base, maxFlashesPerSecond: 10, flashRisk: true, worstSecondMs: 1200n } }), 3), "photosensitivity");
    expect(fail).toMatchObject({ result: TestOutcome.FAILED, actual: 10 });
    expect(fail.message).toContain("1200 ms");
    const red = find(evaluateTag(tagReport({ accessibility: { ...base, maxRedFlashesPerSecond: 5, redFlash: true, flashRisk: true } }), 3), "photosensitivity");
    expect(red).toMatchObject({ result: TestOutcome.FAILED, actual: 5 });
    const blind = find(evaluateTag(tagReport({ accessibility: { ...base, flashesJudged: false, flashesNotJudgedReason: "the renderer was starved" } }), 3), "photosensitivity");
    expect(blind.result).toBe(TestOutcome.ERROR);
    expect(blind.message).toContain("starved");
    expect(find(evaluateTag(tagReport({ accessibility: { ...base, maxFlashesPerSecond: 2 } }), 3), "photosensitivity").result).toBe(TestOutcome.PASSED);
  });

  it("motion_pause: missing and not working fail, working passes, found-but-untried is not evaluated", () => {
    const with_ = (pauseControl: Accessibility_PauseControl) =>
      find(evaluateTag(tagReport({ accessibility: { ...base, motionOver5s: true, pauseControl, pauseControlName: "Pause" } }), 3), "motion_pause");
    expect(with_(Accessibility_PauseControl.WORKS).result).toBe(TestOutcome.PASSED);
    expect(with_(Accessibility_PauseControl.DOES_NOT_WORK).result).toBe(TestOutcome.FAILED);
    expect(with_(Accessibility_PauseControl.MISSING).result).toBe(TestOutcome.FAILED);
    expect(with_(Accessibility_PauseControl.NOT_VERIFIED).result).toBe(TestOutcome.ERROR);
  });

  it("axe findings fail with their targets; text not checkable is named; no document checks is not evaluated", () => {
    const r = evaluateTag(tagReport({
      accessibility: {
        ...base,
        violations: [
          { ruleId: "image-alt", impact: "critical", count: 2, targets: ["#a", "#b"], wcag: ["1.1.1"] },
          { ruleId: "link-name", impact: "serious", count: 1, targets: ["#exit"], wcag: ["2.4.4", "4.1.2"] },
        ],
        notChecked: [{ kind: "canvas_text", count: 1, reason: "" }],
      },
    }), 3);
    expect(find(r, "image_alt")).toMatchObject({ result: TestOutcome.FAILED, actual: 2 });
    expect(find(r, "image_alt").message).toContain("#a, #b");
    expect(find(r, "exit_name")).toMatchObject({ result: TestOutcome.FAILED, actual: 1 });
    expect(find(r, "text_contrast").result).toBe(TestOutcome.PASSED);
    expect(find(r, "text_contrast").message).toContain("canvas");
    const none = evaluateTag(tagReport({ accessibility: { ...base, rulesChecked: [], documentCheckError: "the page did not answer" } }), 3);
    expect(find(none, "image_alt").result).toBe(TestOutcome.ERROR);
    expect(find(evaluateTag(tagReport({}), 3), "photosensitivity").result).toBe(TestOutcome.ERROR);
  });
});

describe("captions (WCAG 1.2.2) on a VAST report, spec set 3", () => {
  it("fails per video Linear the linter found without <ClosedCaptionFiles>, passes on 4.1+ without, not evaluated before 4.1", async () => {
    const { evaluateVast } = await import("../src/index.ts");
    const { vastReport } = await import("./fixtures.ts");
    const cap = (r: ReturnType<typeof vastReport>) => evaluateVast(r, 3).tests.find((t) => t.test === "captions")!;
    const finding = { rule: "vast.ctv.closed-captions.recommended", severity: "info", path: "/VAST/Ad[1]/InLine/Creatives/Creative[1]/Linear/MediaFiles", line: 12, group: "ctv" };
    const missing = cap(vastReport({ lint: [finding], wrapperChain: [{ type: "inline", vastVersion: "4.1" }] }));
    expect(missing).toMatchObject({ result: TestOutcome.FAILED, actual: 1 });
    expect(missing.message).toContain("line 12");
    expect(missing.source).toContain("1.2.2");
    expect(cap(vastReport({ wrapperChain: [{ type: "inline", vastVersion: "4.2" }] })).result).toBe(TestOutcome.PASSED);
    const old = cap(vastReport({ vastVersion: "3.0", wrapperChain: [{ type: "inline", vastVersion: "3.0" }] }));
    expect(old.result).toBe(TestOutcome.ERROR);
    expect(old.message).toContain("4.1+");
  });

  it("captions carried in every video media file pass, whatever the XML declares; one file without them does not", async () => {
    const { evaluateVast } = await import("../src/index.ts");
    const { vastReport, mediaFile } = await import("./fixtures.ts");
    const cap = (r: ReturnType<typeof vastReport>) => evaluateVast(r, 3).tests.find((t) => t.test === "captions")!;
    const withCaptions = (captions: boolean) => {
      const m = mediaFile();
      m.probe!.accessibility = create(MediaAccessibilitySchema, {
        captions, captionTracks: captions ? [{ streamIndex: 0, codec: "cea_608_708", declaredBy: "video_closed_captions" }] : [],
      });
      return m;
    };
    const old = (files: ReturnType<typeof mediaFile>[]) =>
      cap(vastReport({ vastVersion: "3.0", wrapperChain: [{ type: "inline", vastVersion: "3.0" }], creatives: [create(VastCreativeSchema, { mediafiles: files })] }));
    const embedded = old([withCaptions(true), withCaptions(true)]);
    expect(embedded).toMatchObject({ result: TestOutcome.PASSED, actual: 0 });
    expect(embedded.message).toContain("cea_608_708");
    expect(old([withCaptions(true), withCaptions(false)]).result).toBe(TestOutcome.ERROR);
  });
});

describe("photosensitivity (WCAG 2.3.1) on VAST media files, spec set 3", () => {
  it("the analysed rendition is judged as a video file; the creative's other renditions and VPAID are not applicable; a failed or partial analysis is not evaluated", async () => {
    const { evaluateVast } = await import("../src/index.ts");
    const { vastReport, mediaFile } = await import("./fixtures.ts");
    const analysed = (a: Partial<{ maxFlashesPerSecond: number; flashRisk: boolean; flashesJudged: boolean; worstSecondMs: bigint; flashesNotJudgedReason: string }>) => {
      const m = mediaFile();
      m.probe!.accessibility = create(MediaAccessibilitySchema, { framesAnalyzed: 90, flashAnalysisFps: 30, flashesJudged: true, worstSecondMs: -1n, ...a });
      return m;
    };
    const other = () => {
      const m = mediaFile();
      m.probe!.accessibility = create(MediaAccessibilitySchema, { flashesJudged: false, flashesNotJudgedReason: "not analysed on this rendition", worstSecondMs: -1n });
      return m;
    };
    const failed = mediaFile();
    failed.probe!.accessibility = create(MediaAccessibilitySchema, { flashesNotJudgedReason: "the flash pass did not finish" });
    failed.probe!.notMeasured = ["accessibility.flash_risk"];
    const vpaid = mediaFile({ attributes: { type: "application/javascript", apiFramework: "VPAID" } });
    const report = vastReport({
      creatives: [
        create(VastCreativeSchema, { mediafiles: [other(), analysed({ maxFlashesPerSecond: 10, flashRisk: true, worstSecondMs: 500n }), vpaid] }),
        create(VastCreativeSchema, { mediafiles: [analysed({ maxFlashesPerSecond: 2 }), other()] }),
        create(VastCreativeSchema, { mediafiles: [failed] }),
        create(VastCreativeSchema, { mediafiles: [analysed({ flashesJudged: false, flashesNotJudgedReason: "only the first 10 s were analysed" })] }),
      ],
    });
    const ps = evaluateVast(report, 3).tests.filter((t) => t.test === "photosensitivity");
    const at = (c: number, m: number) => ps.find((t) => t.group === `creative_${c}_mediafile_${m}`)!;
    expect(at(0, 1)).toMatchObject({ result: TestOutcome.FAILED, actual: 10 });
    expect(at(0, 1).message).toContain("10 general flashes in the second starting 500 ms");
    expect(at(0, 1).source).toContain("2.3.1");
    expect(at(1, 0)).toMatchObject({ result: TestOutcome.PASSED, actual: 2 });
    // Not applicable: no result for the other renditions and the VPAID file.
    for (const [c, m] of [[0, 0], [0, 2], [1, 1]] as const) expect(at(c, m)).toBeUndefined();
    expect(ps).toHaveLength(4);
    expect(at(2, 0).result).toBe(TestOutcome.ERROR);
    expect(at(2, 0).message).toContain("the flash pass did not finish");
    expect(at(3, 0).result).toBe(TestOutcome.ERROR);
    // Spec set 0 (IAB) leaves it to spec set 3.
    expect(evaluateVast(report, 0).tests.some((t) => t.test === "photosensitivity")).toBe(false);
  });
});
