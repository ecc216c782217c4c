import { ScanKind } from "@cva/contracts";
import { STREAM } from "../nats/names.ts";

// Subjects carry the scan kind and the worker location, so routing is a subject filter and scaling is
// "start another worker": all workers of one kind+location share one durable pull consumer.
export const JOB_SUBJECTS = "scan.job.>";

const NAMES: Record<number, string> = {
  [ScanKind.TAG]: "tag",
  [ScanKind.ZIP]: "zip",
  [ScanKind.VAST]: "vast",
  [ScanKind.MEDIA]: "media",
  [ScanKind.VIDEO_FILE]: "video",
  [ScanKind.IMAGE_FILE]: "image",
  [ScanKind.AUDIO_FILE]: "audio",
  [ScanKind.SIMID]: "simid",
};

export function kindName(kind: ScanKind): string {
  const n = NAMES[kind];
  if (!n) throw new Error(`unknown scan kind ${kind}`);
  return n;
}

export const jobSubject = (kind: ScanKind, location: string) => `scan.job.${kindName(kind)}.${location}`;
export const consumerName = (kind: ScanKind, location: string) => `w_${kindName(kind)}_${location}`;
export const heartbeatSubject = (kind: ScanKind, location: string) => `scan.worker.${kindName(kind)}.${location}`;
export const HEARTBEAT_WILDCARD = "scan.worker.>";
// Scoped by the requester (its NATS user), which may subscribe to its own results only.
export const resultSubject = (requester: string, jobId: string) => `scan.result.${requester}.${jobId}`;
/** The requester a job's reply subject names, or undefined for anything else. */
export function requesterOfResultSubject(subject: string): string | undefined {
  const t = subject.split(".");
  return t.length === 4 && t[0] === "scan" && t[1] === "result" && t[2] ? t[2] : undefined;
}
export const maxDeliveriesAdvisory = (consumer: string) => `$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.${STREAM}.${consumer}`;
