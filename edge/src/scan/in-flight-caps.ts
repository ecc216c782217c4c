import { ScanKind } from "@cva/contracts";
import { processingError } from "../errors.ts";
import type { EdgeDeps } from "../ports.ts";
import type { ReportKind } from "./types.ts";

// How many scans one customer may have in flight at once, per lane — the workers of one scan kind — so that no
// customer can hold every slot of a kind: at most half the live slots of the kind where the scan runs, at least 1,
// or the operator's CUSTOMER_MAX_IN_FLIGHT per lane. A scan counts on every lane it runs on: a zip on the zip
// analyzer and, for its render, on the tag scanner; a VAST on the VAST analyzer and, for its media files, on the
// media prober. Auth enforces the caps exactly (in the compare-and-swap that charges the quota, across every edge);
// admission.ts uses them to refuse a customer at its cap before its body is read.

export type Lane = "tag" | "zip" | "vast" | "media" | "video" | "image" | "audio";

export interface InFlightCap {
  lane: Lane;
  max: number;
}

const KIND: Record<Lane, ScanKind> = {
  tag: ScanKind.TAG, zip: ScanKind.ZIP, vast: ScanKind.VAST, media: ScanKind.MEDIA,
  video: ScanKind.VIDEO_FILE, image: ScanKind.IMAGE_FILE, audio: ScanKind.AUDIO_FILE,
};

/** The lanes a scan of each endpoint runs on; its own kind's first. */
export const LANES_OF: Record<ReportKind, readonly Lane[]> = {
  tag_v3: ["tag"],
  tag_v2: ["tag"],
  zip_v3: ["zip", "tag"],
  zip_v2: ["zip", "tag"],
  vast_v3: ["vast", "media"],
  // Raw files: each kind its own workers (a 500 MB master must not take a VAST's media slots, nor an image a video's).
  video_v3: ["video"],
  image_v3: ["image"],
  audio_v3: ["audio"],
};

/** What a lane's cap is called in the answer to a customer refused on it. */
export const LANE_SCANS: Record<Lane, string> = {
  tag: "scans rendering on the tag scanner (ad tags and zips)",
  zip: "zip scans",
  vast: "VAST scans",
  media: "scans probing media files (VAST)",
  video: "video file scans",
  image: "image file scans",
  audio: "audio file scans",
};

export interface InFlightCaps {
  /** The caps of a scan of `kind` that runs in `location` (each worker serving several locations counted once). */
  capsFor(kind: ReportKind, location: string | undefined): InFlightCap[];
}

export function createInFlightCaps(deps: Pick<EdgeDeps, "dispatcher" | "config">): InFlightCaps {
  const fixed = deps.config.maxInFlightPerCustomer;
  const capOf = (lane: Lane, location: string | undefined): number => {
    if (fixed) return fixed;
    const slots = deps.dispatcher.liveWorkers(KIND[lane], location).reduce((n, w) => n + (Number(w.slots) > 0 ? Number(w.slots) : 0), 0);
    return Math.max(1, Math.floor(slots / 2));
  };
  return { capsFor: (kind, location) => LANES_OF[kind].map((lane) => ({ lane, max: capOf(lane, location) })) };
}

/** Metadata of auth's FAILED_PRECONDITION naming the full lane (auth.proto, ReserveQuota). */
export const IN_FLIGHT_LANE_HEADER = "cva-in-flight-lane";

/** The answer to a customer refused on a lane: not charged, with Retry-After. */
export const inFlightRefusal = (cap: InFlightCap, retryAfterSeconds: number | undefined) =>
  processingError(`too many ${LANE_SCANS[cap.lane]} in flight for this customer: at most ${cap.max} at once; retry when one has finished`, retryAfterSeconds);
