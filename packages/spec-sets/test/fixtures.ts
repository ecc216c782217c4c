import { create, type MessageInitShape } from "@bufbuild/protobuf";
import {
  TagReportSchema,
  VastCreativeSchema,
  VastMediaFileSchema,
  VastReportSchema,
  type TagReport,
  type VastReport,
} from "@cva/contracts";

// Spreading an init shape (a union of message and plain object) needs a cast; create() still checks at run time.

/** A well-behaved 300x250 tag report; override what a test is about. */
export function tagReport(init: MessageInitShape<typeof TagReportSchema> = {}): TagReport {
  return create(TagReportSchema, {
    dimensions: { width: 300, height: 250 },
    network: {
      loadSize: { initialLoad: 120_000n, hostInitiatedSubload: 50_000n, total: 170_000n },
      measurementPixels: 1,
      // Consistent with load_size: three 40 KB requests before the load boundary, one 50 KB request after it.
      responses: [
        [0, 40_000],
        [10, 40_000],
        [20, 40_000],
        [2000, 50_000],
      ].map(([startedMs, bytes]) => ({ startedMs: BigInt(startedMs!), bytes: BigInt(bytes!), status: 200 })),
    },
    domContentLoadedMs: 500n,
    cpuUsageMs: 1000n,
    cpu: { averagePercent: 10, peakPercent: 25 },
    meta: { scanDurationSeconds: 10 },
    animationDurationMs: 5000n,
    timeToVisualStartMs: 300n,
    hasBorder: true,
    ssl: { compliant: true },
    ...init,
  } as MessageInitShape<typeof TagReportSchema>);
}

export function mediaFile(init: MessageInitShape<typeof VastMediaFileSchema> = {}) {
  return create(VastMediaFileSchema, {
    attributes: { type: "video/mp4", width: 1280, height: 720, bitrate: 2000 },
    probe: {
      httpCode: 200,
      fileSize: 7_000_000n,
      fileInfo: {
        container: { format: "mov,mp4", moovAtomPosition: "beginning", duration: 30.02, bitRate: 2_100_000n },
        video: { bitRate: 1_900_000n, codec: "h264", width: 1280, height: 720, duration: 30.02 },
        audio: { bitRate: 160_000n, codec: "aac", profile: "LC", sampleRate: 48_000, channels: 2, loudness: { lufs: -23 } },
      },
    },
    ...init,
  } as MessageInitShape<typeof VastMediaFileSchema>);
}

export function vastReport(init: MessageInitShape<typeof VastReportSchema> = {}): VastReport {
  return create(VastReportSchema, {
    adSystem: "Example",
    vastVersion: "4.1",
    cors: true,
    wrapperRedirects: 1,
    impressionPixels: ["https://example.test/imp"],
    ssl: { compliant: true },
    xml: { contentType: "application/xml; charset=utf-8", httpCode: 200, fileSize: 4000n, loadTimeMs: 120n },
    creatives: [create(VastCreativeSchema, { duration: "00:00:30", mediafiles: [mediaFile()] })],
    ...init,
  } as MessageInitShape<typeof VastReportSchema>);
}
