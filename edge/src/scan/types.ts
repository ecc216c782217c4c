import type { TagReport, VastReport, ZipReport } from "@cva/contracts";
import type { TargetingInput } from "../validation/fields.ts";

export type ReportKind = "tag_v3" | "tag_v2" | "zip_v2" | "zip_v3" | "vast_v3";
export const REPORT_KINDS: readonly ReportKind[] = ["tag_v3", "tag_v2", "zip_v2", "zip_v3", "vast_v3"];

/** A validated scan request, whichever door (JSON or gRPC) it came through. */
export type ScanRequest =
  | { kind: "tag_v3"; html: string; specId: number; workspaceId: number; name: string }
  | { kind: "tag_v2"; html: string; targeting: TargetingInput }
  | { kind: "zip_v2"; zip: Uint8Array; targeting: TargetingInput }
  | { kind: "zip_v3"; zip: Uint8Array; specId: number; workspaceId: number; name: string }
  | { kind: "vast_v3"; url: string; specId: number; workspaceId: number; name: string };

export interface Principal {
  customerId: string;
  keyId: string;
}

// `replayed`: the answer of an earlier scan with the same Idempotency-Key and request (json = its stored bytes).
export type ScanOutcome = (
  | { kind: "tag_v3" | "tag_v2"; jobId: string; pageToken: string; report: TagReport; json: string }
  | { kind: "zip_v2" | "zip_v3"; jobId: string; pageToken: string; report: ZipReport; json: string }
  | { kind: "vast_v3"; jobId: string; pageToken: string; report: VastReport; json: string }
) & { replayed?: boolean };

export interface ScanOptions {
  /** Validated Idempotency-Key (validation/idempotency-key.ts). */
  idempotencyKey?: string;
}
