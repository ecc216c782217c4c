import type { Client } from "@connectrpc/connect";
import type { FastifyBaseLogger } from "fastify";
import type { Registry } from "prom-client";
import type { auth, reportstore, ScanJob, ScanJobResult, ScanKind, WorkerHeartbeat } from "@cva/contracts";
import type { UploadStore } from "@cva/platform";

// The slice of @cva/platform's Dispatcher the edge consumes. Declared here so the edge compiles and is tested
// against in-memory fakes independently of the NATS implementation (structurally compatible with the real one).
export interface Dispatcher {
  submit(job: ScanJob, opts: { timeoutMs: number; location?: string }): Promise<ScanJobResult>;
  liveWorkers(kind: ScanKind, location?: string): WorkerHeartbeat[];
  /** The durably stored result of a job this requester (any replica) submitted, e.g. one whose edge is gone. */
  resultOf?(jobId: string, kind?: ScanKind): Promise<ScanJobResult | undefined>;
}

export interface EdgeLimits {
  /** Whole JSON request body, bytes. */
  maxBodyBytes: number;
  /** Decoded ad tag, bytes. */
  maxTagBytes: number;
  /** Decoded (compressed) zip, bytes. */
  maxZipBytes: number;
  /** Decoded VAST URL, bytes. */
  maxVastUrlBytes: number;
  /** `name`, characters. */
  maxNameLength: number;
  /** A raw file of POST /v3/scanVideo, scanImage, scanAudio, bytes (as `data`, `url` or a multipart `file` part). */
  maxVideoBytes: number;
  maxImageBytes: number;
  maxAudioBytes: number;
}

export const DEFAULT_LIMITS: EdgeLimits = {
  maxBodyBytes: 15 * 1024 * 1024,
  maxTagBytes: 1024 * 1024,
  maxZipBytes: 10 * 1024 * 1024,
  maxVastUrlBytes: 8 * 1024,
  maxNameLength: 256,
  maxVideoBytes: 500 * 1024 * 1024,
  maxImageBytes: 20 * 1024 * 1024,
  maxAudioBytes: 200 * 1024 * 1024,
};

export interface EdgeConfig {
  /** Prefix of every URL written into a report, no trailing slash. */
  publicBaseUrl: string;
  /** Location of this edge (SERVER_LOCATION); jobs without targeting.country go there. */
  serverLocation: string;
  limits: EdgeLimits;
  /** How long the edge waits for a scan result (dispatch to report). */
  scanTimeoutMs: number;
  /** Bound on every call to auth / report-store, so a hung dependency ends in processing_error. */
  rpcTimeoutMs?: number;
  /** Retry-After seconds sent with processing_error. */
  retryAfterSeconds?: number;
  /**
   * Most scans one customer may have reserved and unfinished at once on each lane — the workers of one scan kind
   * (CUSTOMER_MAX_IN_FLIGHT, scan/in-flight-caps.ts); 0 or unset: half the live worker slots of the lane's kind in
   * the scan's location, at least 1.
   */
  maxInFlightPerCustomer?: number;
}

export interface Readiness {
  ready: boolean;
  details: Record<string, unknown>;
}

export interface EdgeDeps {
  auth: Client<typeof auth.AuthService>;
  reports: Client<typeof reportstore.ReportStoreService>;
  dispatcher: Dispatcher;
  config: EdgeConfig;
  logger: FastifyBaseLogger;
  readiness?: () => Promise<Readiness>;
  /** Known spec_id values; defaults to @cva/spec-sets when present, else only 0. */
  isKnownSpecId?: (id: number) => boolean;
  /**
   * The uploads bucket (artifacts/uploads.ts of the platform): raw files received by the edge are streamed into it and
   * the scan job names them. Without it the raw-file scans take only a `url`.
   */
  uploads?: Pick<UploadStore, "put" | "delete">;
  /** Prometheus registry to add the edge's metrics to and to expose on /metrics. */
  metricsRegistry?: Registry;
}
