import { randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { Code, ConnectError } from "@connectrpc/connect";
import { create } from "@bufbuild/protobuf";
import { ErrorType, ScanJobSchema, type auth, type ScanJobResult } from "@cva/contracts";
import { ChildJobError, runChildJob } from "@cva/platform";
import { ApiError, asApiError, payloadError, processingError, quotaError } from "../errors.ts";
import type { EdgeDeps } from "../ports.ts";
import { callSettings } from "./calls.ts";
import { IN_FLIGHT_LANE_HEADER, inFlightRefusal, type InFlightCaps } from "./in-flight-caps.ts";
import { buildJob, KIND_OF, locationOf, reportCaseOf } from "./job.ts";
import type { WorkspaceSettings } from "./workspace-settings.ts";
import { reportBinaryOf, scanOutcome } from "./outcome.ts";
import type { Principal, ScanOutcome, ScanRequest, ScanRequestFields } from "./types.ts";

// The scan saga: reserve → run → store → settle, or refund. Quota is charged exactly when a report is stored: the
// reservation holds one scan (with a TTL, the customer's in-flight cap and the idempotency key), the report is
// stored, then the reservation is committed; every failure after the reservation is answered once and refunds it.
// The idempotent-retry protocol (idempotent-retry.ts) decides when a request runs a saga of its own.

// A call whose outcome is unknown: it may have been done at auth although no answer came.
const answerLost = (err: unknown) =>
  !(err instanceof ConnectError) || [Code.DeadlineExceeded, Code.Unavailable, Code.Canceled, Code.Unknown, Code.Internal, Code.Aborted].includes(err.code);

// Longest pause between two calls of an RPC asked again (askAgain).
const RETRY_MAX_PAUSE_MS = 1_000;

/**
 * Calls `op` until it answers, asking again after each failure that `retryable` allows, with pauses of `firstPause`
 * (100 ms) doubling to RETRY_MAX_PAUSE_MS, while the next call would begin by `lastStart`. `failed` hears each failure
 * that is asked again. Resolves the answer and the calls it took; rejects with the last error.
 */
async function askAgain<T>(
  op: () => Promise<T>,
  o: { lastStart: number; retryable: (err: unknown) => boolean; firstPause?: number; failed?: (err: unknown, attempt: number) => void },
): Promise<{ value: T; attempts: number }> {
  for (let attempt = 1, pause = o.firstPause ?? 100; ; attempt++, pause = Math.min(2 * pause, RETRY_MAX_PAUSE_MS)) {
    try {
      return { value: await op(), attempts: attempt };
    } catch (err) {
      if (!o.retryable(err) || Date.now() + pause > o.lastStart) throw err;
      o.failed?.(err, attempt);
      await sleep(pause);
    }
  }
}

type Log = EdgeDeps["logger"];

/** A reservation this request holds. */
export interface Reservation {
  jobId: string;
  reservationId: string;
  /** The reservation's expiry as this edge knows it: a commit asked after it would refund instead. */
  commitBy: number;
  /** Reserved with an idempotency key: the protobuf report is stored too, for retries over gRPC. */
  keyed: boolean;
  /** How long the reservation took (the "scan done" line's phase_ms). */
  reserveMs: number;
}

export interface ScanSaga {
  /**
   * Asks auth for one scan of the customer's quota, under its in-flight cap and, with `idem`, its idempotency key.
   * Auth's refusals become the documented errors (quota_error, the in-flight processing_error, a key conflict's
   * payload_error); with a key auth may instead answer the earlier scan's state (`replay`).
   */
  reserve(principal: Principal, req: ScanRequestFields, jobId: string, idem: { key: string; hash: string } | undefined, log: Log): Promise<auth.ReserveQuotaResponse>;
  /** Runs a reserved scan to its stored, committed report; on any failure refunds and throws the client's answer. */
  run(principal: Principal, req: ScanRequest, reservation: Reservation, log: Log): Promise<ScanOutcome>;
  /** A worker's stored result as this request's answer; throws (ChildJobError) when the result is a failure. */
  outcomeOf(req: ScanRequestFields, jobId: string, result: ScanJobResult): Promise<ScanOutcome>;
  /** Stores the rendered report (report-store answers AlreadyExists when a report with this job id is stored). */
  store(principal: Principal, req: ScanRequestFields, outcome: ScanOutcome, keyed: boolean): Promise<void>;
  /**
   * Commits a reservation whose report is stored, asking again until `commitBy` (CommitQuota is idempotent). A
   * reservation the reaper refunded first (it outlived its TTL) is charged anew for `charge`'s job: the client gets
   * the report, so the scan counts once.
   */
  settle(reservationId: string, log: Log, commitBy: number, charge: LateCharge): Promise<void>;
  /** Gives a failed scan back; a refund that fails is left to auth's reaper. */
  refund(reservationId: string, log: Log): Promise<void>;
}

/** The scan a reservation was for, to charge it anew when the reaper refunded its reservation before the commit. */
export interface LateCharge {
  principal: Principal;
  req: ScanRequestFields;
  jobId: string;
}

export function createScanSaga(deps: Pick<EdgeDeps, "auth" | "reports" | "dispatcher" | "config" | "uploads"> & { caps: InFlightCaps; workspaces?: WorkspaceSettings }): ScanSaga {
  const { config } = deps;
  const { rpcTimeoutMs, retryAfter, publicBase, reservationTtlMs, unavailable } = callSettings(config);

  /**
   * What a failed scan answers the client. Every failure after the quota reservation comes here once: the one catch of
   * run(), which logs it once and refunds. A worker's payload verdict (bad zip internals, a VAST URL refused or
   * unreachable) is the client's problem and its message is written by our scanners for clients; anything else is
   * ours and reported generically (the detail only in the log line).
   */
  function answerFor(err: unknown, req: ScanRequest, location: string): { apiErr: ApiError; log: Record<string, unknown> } {
    if (err instanceof ApiError) return { apiErr: err, log: {} };
    if (err instanceof ChildJobError) {
      const f = err.failure;
      switch (f.reason) {
        case "no_worker":
          return {
            apiErr: processingError(
              `no worker resources free for ${KIND_OF[req.kind].label} scans in ${location}; retry later`,
              f.retryAfterSeconds ? Math.ceil(f.retryAfterSeconds) : retryAfter,
            ),
            log: { reason: f.reason, detail: f.message },
          };
        case "refused":
          return {
            apiErr: f.type === ErrorType.PAYLOAD
              ? payloadError(f.message.slice(0, 500) || "data: the creative could not be scanned")
              : processingError("the scan could not be completed; retry later", retryAfter),
            log: { reason: f.reason, worker_error_type: f.type, worker_message: f.message },
          };
        case "failed":
          return { apiErr: processingError("the scan could not be completed in time; retry later", retryAfter), log: { reason: f.reason, detail: f.message } };
        case "wrong_report":
          return { apiErr: processingError("the scan could not be completed; retry later", retryAfter), log: { reason: f.reason, detail: f.message } };
      }
    }
    return { apiErr: asApiError(err), log: { reason: "unexpected", err: String(err) } };
  }

  async function reserve(principal: Principal, req: ScanRequestFields, jobId: string, idem: { key: string; hash: string } | undefined, log: Log) {
    // The customer's share of every lane the scan runs on (in-flight-caps.ts), enforced by auth with the quota.
    const caps = deps.caps.capsFor(req.kind, locationOf(req, config));
    // The id is ours, so a call whose answer is lost — auth slow past the time-out, yet the reservation made — is
    // asked once more with it (auth answers the same reservation) and, still unanswered, refunded by it. Otherwise
    // that reservation would hold one of the customer's in-flight slots until the reaper, minutes later.
    const reservationId = randomBytes(18).toString("base64url");
    // A request withheld at this edge's own count is refused whatever auth says: it is only asked what a reservation
    // would answer first (a replay, the quota), holding nothing — a slot held for it, even for a moment, could refuse
    // one of the customer's admitted scans racing it to auth.
    const checkOnly = "withheld" in req;
    const call = () =>
      deps.auth.reserveQuota(
        {
          customerId: principal.customerId,
          jobId,
          ttlMs: BigInt(reservationTtlMs),
          inFlightCaps: caps,
          reservationId,
          checkOnly,
          ...(idem ? { idempotencyKey: idem.key, requestHash: idem.hash } : {}),
        },
        { timeoutMs: rpcTimeoutMs },
      );
    try {
      try {
        return await call();
      } catch (err) {
        if (!answerLost(err)) throw err;
        log.warn({ err: String(err), reservation_id: reservationId }, "quota reservation unanswered; asking again with its id");
        return await call();
      }
    } catch (err) {
      if (answerLost(err)) void refund(reservationId, log);
      if (err instanceof ConnectError) {
        if (err.code === Code.ResourceExhausted) throw quotaError("monthly scan quota used up");
        if (err.code === Code.FailedPrecondition) {
          const lane = err.metadata.get(IN_FLIGHT_LANE_HEADER);
          throw inFlightRefusal(caps.find((c) => c.lane === lane) ?? caps[0]!, retryAfter);
        }
        if (err.code === Code.AlreadyExists) {
          throw payloadError("Idempotency-Key: already used in the last 24 h for a different request; use a new key for a new request");
        }
      }
      log.warn({ err: String(err) }, "quota reservation failed");
      throw unavailable("the quota service");
    }
  }

  async function outcomeOf(req: ScanRequestFields, jobId: string, result: ScanJobResult): Promise<ScanOutcome> {
    // The job was submitted by another edge; only its result is read here (which report, or which failure).
    const job = create(ScanJobSchema, { jobId, kind: KIND_OF[req.kind].kind });
    const report = await runChildJob({ submit: async () => result }, job, { report: reportCaseOf(req), timeoutMs: 1 });
    return scanOutcome(req, jobId, report, publicBase);
  }

  // Commits the reservation of a scan whose report is stored. CommitQuota is idempotent, so a call that failed or
  // timed out (auth restarting, a NATS node lost and its streams electing new leaders: seconds in which auth cannot
  // write, and the commit may even have landed) is asked again until `commitBy`, the reservation's expiry as this edge
  // knows it: until then the reaper leaves it alone, after it a commit refunds instead. So a report the client gets
  // is charged unless auth stayed unreachable for the whole rest of the reservation's TTL; the answer waits meanwhile.
  async function settle(reservationId: string, log: Log, commitBy: number, charge: LateCharge) {
    let attempts = 0;
    let res: auth.CommitQuotaResponse;
    try {
      const commit = () => {
        attempts++;
        return deps.auth.commitQuota({ reservationId }, { timeoutMs: rpcTimeoutMs });
      };
      ({ value: res } = await askAgain(commit, {
        // Every call begins before the expiry.
        lastStart: commitBy - 1,
        retryable: () => true,
        failed: (err, attempt) => {
          if (attempt === 1) log.info({ err: String(err), reservation_id: reservationId }, "quota commit failed; asking again until the reservation's expiry");
        },
      }));
    } catch (err) {
      log.warn({ err: String(err), reservation_id: reservationId, attempts }, "quota commit failed until the reservation's expiry; the reaper refunds it, so this scan is not charged");
      return;
    }
    if (!res.committed) await chargeAnew(reservationId, log, charge);
    else if (attempts > 1) log.info({ reservation_id: reservationId, attempts }, "quota committed after failed attempts");
  }

  // The reaper refunded the reservation first: an edge killed after its scan's result was stored, and the client's
  // retry (which finishes that scan) came after the reservation's TTL (chaos under load, CI 2026-11-27: the edge back
  // after 4.1 s, the retry past the 26 s TTL). The client gets the report, so the scan is charged with a reservation
  // made and committed now. The refund settled the first one for good (auth's compare-and-swap), so this is the only
  // charge. Without the idempotency key: the key already names this job. Refused (quota used up meanwhile, in-flight
  // cap), the scan stays free; that is logged.
  async function chargeAnew(refunded: string, log: Log, { principal, req, jobId }: LateCharge) {
    try {
      const res = await reserve(principal, req, jobId, undefined, log);
      await settle(res.reservationId, log, Date.now() + reservationTtlMs, { principal, req, jobId });
      log.info({ reservation_id: refunded, charged_with: res.reservationId }, "the reservation was refunded before its commit (it outlived its TTL); charged the delivered scan with a new one");
    } catch (err) {
      log.warn({ reservation_id: refunded, err: String(err) }, "the reservation was refunded before its commit (it outlived its TTL) and a new charge was refused: this scan is not charged");
    }
  }

  // A failed scan's reservation given back. Unanswered (auth or its NATS node failing over: chaos 2026-11-27, 11
  // refunds in 25 runs), it is asked again in the background for up to 3 RPC time-outs rather than left to the reaper:
  // until then the reservation holds one of the customer's in-flight slots, and its Idempotency-Key reads as running,
  // so the client's retry would wait out the whole TTL (scan time-out + 3 RPC time-outs) before scanning anew. The
  // answer to the client does not wait for it; a retry that finds the key still running polls until it is released.
  async function refund(reservationId: string, log: Log) {
    try {
      await deps.auth.refundQuota({ reservationId }, { timeoutMs: rpcTimeoutMs });
    } catch (err) {
      if (!answerLost(err)) {
        log.warn({ err: String(err), reservation_id: reservationId }, "quota refund refused; the reaper refunds the reservation when it expires");
        return;
      }
      log.info({ err: String(err), reservation_id: reservationId }, "quota refund unanswered; asking again in the background");
      void refundAgain(reservationId, log, Date.now() + 3 * rpcTimeoutMs);
    }
  }

  async function refundAgain(reservationId: string, log: Log, until: number) {
    const lastStart = until - rpcTimeoutMs;
    try {
      if (Date.now() + 100 > lastStart) throw new Error("no time left");
      await sleep(100);
      const { attempts } = await askAgain(() => deps.auth.refundQuota({ reservationId }, { timeoutMs: rpcTimeoutMs }), { lastStart, retryable: answerLost, firstPause: 200 });
      log.info({ reservation_id: reservationId, attempts: attempts + 1 }, "quota refunded after failed attempts");
    } catch {
      log.warn({ reservation_id: reservationId }, "quota refund failed; the reaper refunds the reservation when it expires");
    }
  }

  async function store(principal: Principal, req: ScanRequestFields, outcome: ScanOutcome, keyed: boolean): Promise<void> {
    await deps.reports.putReport(
      {
        report: {
          jobId: outcome.jobId,
          customerId: principal.customerId,
          workspaceId: BigInt("workspaceId" in req ? req.workspaceId : 0),
          reportKind: req.kind,
          json: Buffer.from(outcome.json, "utf8"),
          createdUnixMs: BigInt(Date.now()),
          pageToken: outcome.pageToken,
          name: "name" in req ? req.name : "",
          // Kept for idempotent retries over gRPC, which answer the protobuf report.
          ...(keyed ? { reportBinary: reportBinaryOf(outcome) } : {}),
        },
      },
      { timeoutMs: rpcTimeoutMs },
    );
  }

  // The report of a finished scan, stored through a NATS failover: a report store whose node died answers UNAVAILABLE
  // ("no responders" while the restarted node's JetStream comes up, a stream electing its leader) for a second or a
  // few, and giving up then threw away a whole scan (chaos 2026-11-27: three scans at once failed so, each rescanned
  // by its client's retry). Asked again on an answer that says nothing was decided against it (UNAVAILABLE, or no
  // answer in time) until `until`: putting the same report twice stores it once, and the reservation's commit keeps
  // its own time.
  async function storeThroughFailover(principal: Principal, req: ScanRequestFields, outcome: ScanOutcome, keyed: boolean, until: number, log: Log) {
    const { attempts } = await askAgain(() => store(principal, req, outcome, keyed), {
      lastStart: until - rpcTimeoutMs,
      retryable: (err) => err instanceof ConnectError && (err.code === Code.Unavailable || err.code === Code.DeadlineExceeded),
      failed: (err, attempt) => {
        if (attempt === 1) log.info({ err: String(err) }, "storing the report failed; asking again through the failover");
      },
    });
    if (attempts > 1) log.info({ attempts }, "report stored after failed attempts");
  }

  // A raw file the request holds as bytes (a JSON `data`) goes into the uploads bucket now that the scan is reserved
  // (a job carries references only); the saga removes it after the scan. Multipart and gRPC uploads were stored by
  // their door, which removes them.
  async function storeFile(req: ScanRequest): Promise<{ req: ScanRequest; object?: string }> {
    if (!("file" in req) || !("bytes" in req.file)) return { req };
    if (!deps.uploads) throw processingError("file uploads are not available on this server; give the file as `url`", retryAfter);
    const { bytes, fileName, mime } = req.file;
    let ref;
    try {
      ref = await deps.uploads.put((async function* () {
        yield bytes;
      })(), { maxBytes: bytes.length, mimeType: mime });
    } catch (err) {
      throw Object.assign(unavailable("the uploads store"), { detail: String(err) });
    }
    return { req: { ...req, file: { stored: ref, fileName, mime } }, object: ref.object };
  }

  /**
   * A v3 tag or zip scan of a workspace that gives no allowed_domains uses the workspace's stored list (its approved
   * vendors, set once: PUT /v3/workspaces/{id}/settings). Resolved here, after the request's hash was taken: an
   * idempotent retry is the same request whatever the workspace's list became.
   */
  async function withWorkspaceAllowlist(principal: Principal, req: ScanRequest): Promise<ScanRequest> {
    if ((req.kind !== "tag_v3" && req.kind !== "zip_v3") || req.vendorAllowlist?.length || req.workspaceId <= 0 || !deps.workspaces) return req;
    const stored = await deps.workspaces.allowedDomains(principal, req.workspaceId);
    return stored.length > 0 ? { ...req, vendorAllowlist: stored } : req;
  }

  async function run(principal: Principal, received: ScanRequest, r: Reservation, log: Log): Promise<ScanOutcome> {
    const location = locationOf(received, config);
    let req = received;
    let uploaded: string | undefined;
    try {
      ({ req, object: uploaded } = await storeFile(received));
      req = await withWorkspaceAllowlist(principal, req);
      const { job } = buildJob(config, r.jobId, req);
      // Milliseconds per step, for the log line an operator reads first when scans get slow (the scanners log theirs).
      const t0 = Date.now();
      const report = await runChildJob(deps.dispatcher, job, { report: reportCaseOf(req), timeoutMs: config.scanTimeoutMs, location });
      const t1 = Date.now();
      const outcome = scanOutcome(req, r.jobId, report, publicBase);
      const t2 = Date.now();
      try {
        await storeThroughFailover(principal, req, outcome, r.keyed, Math.min(Date.now() + 3 * rpcTimeoutMs, r.commitBy - rpcTimeoutMs), log);
      } catch (err) {
        throw Object.assign(unavailable("the report store"), { detail: String(err) });
      }
      const t3 = Date.now();
      await settle(r.reservationId, log, r.commitBy, { principal, req, jobId: r.jobId });
      log.info({ phase_ms: { reserve: r.reserveMs, scan: t1 - t0, render: t2 - t1, store: t3 - t2, commit: Date.now() - t3 } }, "scan done");
      return outcome;
    } catch (err) {
      // The one place a failed scan is caught and logged.
      const { apiErr, log: fields } = answerFor(err, req, location);
      const detail = (err as { detail?: unknown }).detail;
      log[apiErr.type === "payload_error" ? "info" : "warn"]({ error_type: apiErr.type, ...fields, ...(detail ? { detail } : {}) }, "scan failed");
      // Not charged: whatever went wrong after the reservation, give the scan back.
      await refund(r.reservationId, log);
      throw apiErr;
    } finally {
      if (uploaded) await deps.uploads?.delete(uploaded).catch((err: unknown) => log.warn({ err: String(err) }, "an upload could not be removed; the bucket's TTL removes it"));
    }
  }

  return { reserve, run, outcomeOf, store, settle, refund };
}
