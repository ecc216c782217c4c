import { execFile } from "node:child_process";
import { createReadStream } from "node:fs";
import { chmod, mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { create } from "@bufbuild/protobuf";
import { ScanJobSchema, ScanKind, TestOutcome, type VastReport } from "@cva/contracts";
import { createMemoryArtifactSink, createOutboundPolicy, silentLogger } from "@cva/platform";
import { evaluateVast } from "@cva/spec-sets";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMediaProber } from "../services/media-prober/src/index.ts";
import { createVastAnalyzer } from "../services/vast-analyzer/src/index.ts";

// Photosensitivity of a VAST's media (issue 25 §1, WCAG 2.3.1), end to end through the services as shipped: the VAST
// analyzer picks each Linear creative's smallest decodable progressive rendition for the flash analysis, the media
// prober decodes every frame of that file (flash-pass.ts), and spec set 3 judges it. Each VAST carries a larger
// rendition that does not flash (a moving test pattern), so a verdict from the wrong file would show. Media made here
// by ffmpeg: full-frame white/black, frame-exact (geq on the frame time), as media-prober/test/a11y-fixtures.ts.

const run = promisify(execFile);
const ffmpeg = (...args: string[]) => run("ffmpeg", ["-hide_banner", "-nostdin", "-v", "error", "-y", ...args], { timeout: 120_000 });
const x264 = ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-crf", "18"];
const flash = (hz: number, fps: number) => {
  const on = `if(lt(mod(T*${hz},1),0.5),255,0)`;
  return `color=c=black:s=40x30:r=${fps}:d=3,format=rgb24,geq=r='${on}':g='${on}':b='${on}',scale=320:240:flags=neighbor`;
};

let media: string;
let work: string;
let server: Server;
let base: string;

beforeAll(async () => {
  media = await mkdtemp(join(tmpdir(), "cva-vast-flash-media-"));
  work = await mkdtemp(join(tmpdir(), "cva-vast-flash-work-"));
  // As root the decoders run as an unprivileged user, who must reach the job folders.
  await chmod(work, 0o711);
  await Promise.all([
    ffmpeg("-f", "lavfi", "-i", flash(10, 60), ...x264, join(media, "small-10hz.mp4")),
    ffmpeg("-f", "lavfi", "-i", flash(2, 30), ...x264, join(media, "small-2hz.mp4")),
    ffmpeg("-f", "lavfi", "-i", "testsrc2=s=640x480:r=30:d=3", ...x264, join(media, "large.mp4")),
  ]);
  server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    const vast = /^\/vast-(10hz|2hz)\.xml$/.exec(path);
    if (vast) {
      const file = (p: string, w: number, h: number) =>
        `<MediaFile delivery="progressive" type="video/mp4" width="${w}" height="${h}"><![CDATA[${base}/${p}]]></MediaFile>`;
      res.writeHead(200, { "content-type": "application/xml" });
      return void res.end(`<?xml version="1.0"?><VAST version="4.1"><Ad id="1"><InLine><AdSystem>truth</AdSystem><AdTitle>flash ${vast[1]}</AdTitle>
<Impression><![CDATA[${base}/imp]]></Impression><Creatives><Creative id="c"><Linear><Duration>00:00:03</Duration><MediaFiles>
${file("large.mp4", 640, 480)}${file(`small-${vast[1]}.mp4`, 320, 240)}</MediaFiles></Linear></Creative></Creatives></InLine></Ad></VAST>`);
    }
    const m = /^\/(large|small-10hz|small-2hz)\.mp4$/.exec(path);
    if (m) {
      res.writeHead(200, { "content-type": "video/mp4" });
      return void createReadStream(join(media, `${m[1]}.mp4`)).pipe(res);
    }
    res.writeHead(path === "/imp" ? 204 : 404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}, 180_000);

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  if (media) await rm(media, { recursive: true, force: true });
  if (work) await rm(work, { recursive: true, force: true });
});

async function scan(name: string): Promise<VastReport> {
  const policy = createOutboundPolicy(["127.0.0.0/8"]);
  const prober = createMediaProber({ policy, artifacts: createMemoryArtifactSink(), workDir: work });
  const analyzer = createVastAnalyzer({ policy, location: "usa", logger: silentLogger(), probe: (input) => prober.probe(input) });
  return analyzer.analyze(create(ScanJobSchema, {
    jobId: `truth-${name}`, kind: ScanKind.VAST, apiVersion: "v3", targeting: { language: "en-US" }, input: { case: "vast", value: { url: `${base}/${name}` } },
  }));
}

describe("a VAST's smallest rendition is analysed for flashes and judged by spec set 3 (WCAG 2.3.1)", () => {
  it("smallest rendition flashing at 10 Hz full-area: flash_risk, 10 a second; the larger rendition is not analysed; photosensitivity fails", async () => {
    const r = await scan("vast-10hz.xml");
    const [large, small] = r.creatives[0]!.mediafiles.map((m) => m.probe!);
    expect(small!.error).toBe("");
    expect(small!.accessibility).toMatchObject({ flashRisk: true, flashesJudged: true, redFlash: false, framesAnalyzed: 180, flashAnalysisFps: 60 });
    expect(Math.abs(small!.accessibility!.maxFlashesPerSecond - 10)).toBeLessThanOrEqual(1);
    expect(large!.accessibility).toMatchObject({ framesAnalyzed: 0, flashesJudged: false });
    const ps = evaluateVast(r, 3).tests.filter((t) => t.test === "photosensitivity");
    expect(ps.map((t) => [t.group, t.result, t.actual])).toEqual([["creative_0_mediafile_1", TestOutcome.FAILED, small!.accessibility!.maxFlashesPerSecond]]);
  }, 120_000);

  it("smallest rendition flashing at 2 Hz: no risk, 2 a second; photosensitivity passes", async () => {
    const r = await scan("vast-2hz.xml");
    const small = r.creatives[0]!.mediafiles[1]!.probe!;
    expect(small.accessibility).toMatchObject({ flashRisk: false, flashesJudged: true, maxFlashesPerSecond: 2, framesAnalyzed: 90 });
    const ps = evaluateVast(r, 3).tests.filter((t) => t.test === "photosensitivity");
    expect(ps.map((t) => [t.group, t.result, t.actual])).toEqual([["creative_0_mediafile_1", TestOutcome.PASSED, 2]]);
  }, 120_000);
});
