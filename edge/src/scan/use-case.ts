import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { Code, ConnectError } from "@connectrpc/connect";
import { create } from "@bufbuild/protobuf";
import {
  auth,
  Device,
  ErrorType,
  ScanJobSchema,
  ScanKind,
  TargetingSchema,
  ZipInputSchema,
  VastInputSchema,
  TagInputSchema,
  type ScanJob,
  type ScanJobResult,
  type TagReport,
  type VastReport,
  type ZipReport,
} from "@cva/contracts";
import { reportstore } from "@cva/contracts";
import { ChildJobError, runChildJob } from "@cva/platform";
import { ApiError, asApiError, authError, notFound, payloadError, processingError, quotaError } from "../errors.ts";
import type { EdgeDeps } from "../ports.ts";
import type { TargetingInput } from "../validation/fields.ts";
import { replayedOutcome, reportBinaryOf, scanOutcome } from "./outcome.ts";
import { requestHash } from "./request-hash.ts";
import type { Principal, ReportKind, ScanOptions, ScanOutcome, ScanRequest } from "./types.ts";

export const DEFAULT_RPC_TIMEOUT_MS = 5_000;
// Longest pause between two CommitQuota calls for one stored report.
const COMMIT_RETRY_MAX_PAUSE_MS = 1_000;
// Floor of the default per-customer in-flight cap (CUSTOMER_MAX_IN_FLIGHT unset): half the live slots, at least this.
export const MIN_IN_FLIGHT_CAP = 4;
const V3_TARGETING = { device: "desktop", language: "en-US" } as const;

export interface ScanUseCase {
  /** Resolves an X-ApiKey / x-apikey value to its customer; authentication_error otherwise. */
  authenticate(apiKey: string | undefined): Promise<Principal>;
  /**
   * Reserves quota, runs the scan, stores the rendered report, commits the reservation; refunds on every failure
   * after the reservation. With an idempotency key, a retry of the same request answers the first scan's report.
   */
  scan(principal: Principal, req: ScanRequest, log?: EdgeDeps["logger"], opts?: ScanOptions): Promise<ScanOutcome>;
  getReport(principal: Principal, jobId: string): Promise<{ json: Uint8Array; reportKind: string }>;
  listWorkspaceReports(
    principal: Principal,
    workspaceId: number,
    pageSize: number,
    pageToken: string,
  ): Promise<{ reports: Array<{ job_id: string; name: string; report_kind: string; created_at: string }>; next_page_token: string }>;
  getReportByPageToken(token: string): Promise<reportstore.StoredReport | undefined>;
  getArtifact(id: string): Promise<{ data: Uint8Array; mimeType: string } | undefined>;
}

const KIND_OF: Record<ReportKind, { kind: ScanKind; apiVersion: "v2" | "v3"; label: string }> = {
  tag_v3: { kind: ScanKind.TAG, apiVersion: "v3", label: "tag" },
  tag_v2: { kind: ScanKind.TAG, apiVersion: "v2", label: "tag" },
  zip_v2: { kind: ScanKind.ZIP, apiVersion: "v2", label: "zip" },
  zip_v3: { kind: ScanKind.ZIP, apiVersion: "v3", label: "zip" },
  vast_v3: { kind: ScanKind.VAST, apiVersion: "v3", label: "vast" },
};

const reportCaseOf = (req: ScanRequest) => (req.kind === "zip_v2" || req.kind === "zip_v3" ? "zip" : req.kind === "vast_v3" ? "vast" : "tag");

export function createScanUseCase(deps: EdgeDeps): ScanUseCase {
  const { config } = deps;
  const rpcTimeoutMs = config.rpcTimeoutMs ?? DEFAULT_RPC_TIMEOUT_MS;
  const retryAfter = config.retryAfterSeconds;
  const base = config.publicBaseUrl.replace(/\/+$/, "");
  const unavailable = (what: string) => processingError(`${what} is unavailable; retry later`, retryAfter);
  // A reservation outlives the scan's time-out by the calls that store the report and commit it (plus one of
  // slack): a scan the edge still finishes is committed before the reaper may refund it.
  const reservationTtlMs = config.scanTimeoutMs + 3 * rpcTimeoutMs;

  async function authenticate(apiKey: string | undefined): Promise<Principal> {
    if (apiKey === undefined) throw authError("X-ApiKey header missing");
    const key = apiKey.trim();
    if (key === "") throw authError("X-ApiKey header empty");
    try {
      const res = await deps.auth.authenticate({ apiKey: key }, { timeoutMs: rpcTimeoutMs });
      return { customerId: res.customerId, keyId: res.keyId };
    } catch (err) {
      if (err instanceof ConnectError && (err.code === Code.Unauthenticated || err.code === Code.NotFound || err.code === Code.PermissionDenied)) {
        throw authError("X-ApiKey: unknown or revoked API key");
      }
      deps.logger.warn({ err: String(err) }, "auth service call failed");
      throw unavailable("authentication");
    }
  }

  const locationOf = (req: ScanRequest) => ("targeting" in req ? req.targeting.country : undefined) ?? config.serverLocation;

  function buildJob(jobId: string, req: ScanRequest): { job: ScanJob; location: string } {
    const { kind, apiVersion } = KIND_OF[req.kind];
    const t: TargetingInput = "targeting" in req ? req.targeting : {};
    const location = locationOf(req);
    const targeting = create(TargetingSchema, {
      device: (t.device ?? V3_TARGETING.device) === "mobile" ? Device.MOBILE : Device.DESKTOP,
      language: t.language ?? V3_TARGETING.language,
      country: location,
      pageUrl: t.pageUrl ?? "",
    });
    const job = create(ScanJobSchema, {
      jobId,
      kind,
      apiVersion,
      specId: "specId" in req ? req.specId : 0,
      targeting,
      deadlineUnixMs: BigInt(Date.now() + config.scanTimeoutMs),
      input:
        req.kind === "tag_v3" || req.kind === "tag_v2"
          ? { case: "tag", value: create(TagInputSchema, { creative: { case: "html", value: req.html }, captureLandingPage: req.kind === "tag_v3" }) }
          : req.kind === "zip_v2" || req.kind === "zip_v3"
            ? { case: "zip", value: create(ZipInputSchema, { data: req.zip, captureLandingPage: req.kind === "zip_v3" }) }
            : { case: "vast", value: create(VastInputSchema, { url: req.url }) },
    });
    return { job, location };
  }

  /**
   * What a failed scan answers the client. Every failure after the quota reservation comes here once: the one catch of
   * scan(), which logs it once and refunds. A worker's payload verdict (bad zip internals, a VAST URL refused or
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

  // The customer's in-flight cap for a scan of this kind and location: the operator's, or half the live slots.
  function inFlightCap(req: ScanRequest, location: string): number {
    if (config.maxInFlightPerCustomer) return config.maxInFlightPerCustomer;
    const slots = deps.dispatcher.liveWorkers(KIND_OF[req.kind].kind, location).reduce((n, w) => n + (Number(w.slots) > 0 ? Number(w.slots) : 0), 0);
    return Math.max(MIN_IN_FLIGHT_CAP, Math.ceil(slots / 2));
  }

  async function reserve(principal: Principal, req: ScanRequest, jobId: string, idem: { key: string; hash: string } | undefined, log: EdgeDeps["logger"]) {
    const cap = inFlightCap(req, locationOf(req));
    try {
      return await deps.auth.reserveQuota(
        {
          customerId: principal.customerId,
          jobId,
          ttlMs: BigInt(reservationTtlMs),
          maxInFlight: cap,
          ...(idem ? { idempotencyKey: idem.key, requestHash: idem.hash } : {}),
        },
        { timeoutMs: rpcTimeoutMs },
      );
    } catch (err) {
      if (err instanceof ConnectError) {
        if (err.code === Code.ResourceExhausted) throw quotaError("monthly scan quota used up");
        if (err.code === Code.FailedPrecondition) {
          throw processingError(`too many scans in flight for this customer: at most ${cap} at once; retry when one has finished`, retryAfter);
        }
        if (err.code === Code.AlreadyExists) {
          throw payloadError("Idempotency-Key: already used in the last 24 h for a different request; use a new key for a new request");
        }
      }
      log.warn({ err: String(err) }, "quota reservation failed");
      throw unavailable("the quota service");
    }
  }

  async function scan(principal: Principal, req: ScanRequest, parentLog?: EdgeDeps["logger"], opts: ScanOptions = {}): Promise<ScanOutcome> {
    const key = opts.idempotencyKey;
    const idem = key === undefined ? undefined : { key, hash: requestHash(req) };
    const rootLog = parentLog ?? deps.logger;
    // A retry while the first scan with its key still runs asks again until that scan is done or released (failed:
    // then this one runs), within the scan time-out.
    const waitUntil = Date.now() + config.scanTimeoutMs;
    let resultSince: number | undefined;
    for (let pause = 100; ; pause = Math.min(2 * pause, 1000)) {
      const jobId = randomUUID();
      // Before the call: auth's expiry for this reservation is no earlier than this + its TTL.
      const reservedAt = Date.now();
      const res = await reserve(principal, req, jobId, idem, rootLog.child({ job_id: jobId, report_kind: req.kind }));
      if (res.replay === auth.ReplayState.DONE) return replay(principal, req, res.jobId, rootLog.child({ job_id: res.jobId, report_kind: req.kind }));
      if (res.replay === auth.ReplayState.RUNNING) {
        const log = rootLog.child({ job_id: res.jobId, report_kind: req.kind });
        if (pause === 100) rootLog.info({ waiting_for: res.jobId, report_kind: req.kind }, "idempotent retry waits for the running scan with its key");
        const result = await storedResult(res.jobId, req);
        if (result) {
          // The worker has answered; the edge that asked stores and commits within two RPC time-outs. Still running
          // after that, its edge is gone (restarted, killed): this one finishes the scan from the stored result.
          resultSince ??= Date.now();
          if (Date.now() - resultSince >= 2 * rpcTimeoutMs && res.reservationId) {
            const done = await takeOver(principal, req, res.jobId, res.reservationId, result, log);
            if (done) return done;
            resultSince = undefined;
            continue;
          }
        }
        if (Date.now() + pause > waitUntil) {
          throw processingError("a scan with this Idempotency-Key is still running; retry later", retryAfter);
        }
        await sleep(pause);
        continue;
      }
      return run(principal, req, jobId, res.reservationId, reservedAt + reservationTtlMs, key !== undefined, rootLog.child({ job_id: jobId, report_kind: req.kind }), Date.now() - reservedAt);
    }
  }

  async function storedResult(jobId: string, req: ScanRequest): Promise<ScanJobResult | undefined> {
    if (!deps.dispatcher.resultOf) return undefined;
    return deps.dispatcher.resultOf(jobId, KIND_OF[req.kind].kind).catch(() => undefined);
  }

  // The answer of the earlier scan with this key: its stored report, as first returned (JSON bytes and protobuf).
  async function replay(principal: Principal, req: ScanRequest, jobId: string, log: EdgeDeps["logger"]): Promise<ScanOutcome> {
    let stored: reportstore.StoredReport | undefined;
    try {
      stored = (await deps.reports.getReport({ jobId, customerId: principal.customerId }, { timeoutMs: rpcTimeoutMs })).report;
    } catch (err) {
      if (!(err instanceof ConnectError && err.code === Code.NotFound)) {
        log.warn({ err: String(err) }, "reading the replayed report failed");
        throw unavailable("the report store");
      }
    }
    const outcome = stored && replayedOutcome(req, stored);
    if (!outcome) {
      log.warn({ found: !!stored }, "idempotent replay without its stored report");
      throw processingError("the report of the earlier scan with this Idempotency-Key is not available; use a new key", retryAfter);
    }
    log.info("idempotent replay");
    return outcome;
  }

  // Finishes the scan of an edge that is gone, from the result its worker stored: stores the report and commits the
  // reservation, as that edge would have. A failed result releases the reservation (refund) so the retry runs anew
  // (undefined). If that edge stored the report after all, its report is the answer.
  async function takeOver(principal: Principal, req: ScanRequest, jobId: string, reservationId: string, result: ScanJobResult, log: EdgeDeps["logger"]) {
    const { job, location } = buildJob(jobId, req);
    let report: TagReport | ZipReport | VastReport;
    try {
      report = await runChildJob({ submit: async () => result }, job, { report: reportCaseOf(req), timeoutMs: 1, location });
    } catch (err) {
      log.info({ detail: String(err) }, "the running scan with this Idempotency-Key failed and its edge is gone: releasing it");
      await refund(reservationId, log);
      return undefined;
    }
    const outcome = scanOutcome(req, jobId, report, base);
    // That edge's reservation was held and unexpired a moment ago: it expires within one TTL from now.
    const commitBy = Date.now() + reservationTtlMs;
    try {
      await storeReport(principal, req, outcome, true);
    } catch (err) {
      if (!(err instanceof ConnectError && err.code === Code.AlreadyExists)) {
        log.warn({ err: String(err) }, "storing the report of a taken-over scan failed");
        throw unavailable("the report store");
      }
      await settle(reservationId, log, commitBy);
      return replay(principal, req, jobId, log);
    }
    await settle(reservationId, log, commitBy);
    log.info({ reservation_id: reservationId }, "finished the scan of an edge that is gone, from its stored result");
    return { ...outcome, replayed: true };
  }

  // Commits the reservation of a scan whose report is stored. CommitQuota is idempotent, so a call that failed or
  // timed out (auth restarting, a NATS node lost and its streams electing new leaders: seconds in which auth cannot
  // write, and the commit may even have landed) is asked again until `commitBy`, the reservation's expiry as this edge
  // knows it: until then the reaper leaves it alone, after it a commit refunds instead. So a report the client gets
  // is charged unless auth stayed unreachable for the whole rest of the reservation's TTL; the answer waits meanwhile.
  async function settle(reservationId: string, log: EdgeDeps["logger"], commitBy: number) {
    for (let attempt = 1, pause = 100; ; attempt++, pause = Math.min(2 * pause, COMMIT_RETRY_MAX_PAUSE_MS)) {
      try {
        const res = await deps.auth.commitQuota({ reservationId }, { timeoutMs: rpcTimeoutMs });
        if (!res.committed) log.warn({ reservation_id: reservationId }, "the reservation was refunded before its commit (it outlived its TTL): this scan is not charged");
        else if (attempt > 1) log.info({ reservation_id: reservationId, attempts: attempt }, "quota committed after failed attempts");
        return;
      } catch (err) {
        if (Date.now() + pause >= commitBy) {
          log.warn({ err: String(err), reservation_id: reservationId, attempts: attempt }, "quota commit failed until the reservation's expiry; the reaper refunds it, so this scan is not charged");
          return;
        }
        if (attempt === 1) log.info({ err: String(err), reservation_id: reservationId }, "quota commit failed; asking again until the reservation's expiry");
        await sleep(pause);
      }
    }
  }

  async function refund(reservationId: string, log: EdgeDeps["logger"]) {
    try {
      await deps.auth.refundQuota({ reservationId }, { timeoutMs: rpcTimeoutMs });
    } catch (err) {
      log.warn({ err: String(err), reservation_id: reservationId }, "quota refund failed; the reaper refunds the reservation when it expires");
    }
  }

  async function storeReport(principal: Principal, req: ScanRequest, outcome: ScanOutcome, keyed: boolean): Promise<void> {
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

  async function run(
    principal: Principal, req: ScanRequest, jobId: string, reservationId: string, commitBy: number, keyed: boolean,
    log: EdgeDeps["logger"], reserveMs: number,
  ): Promise<ScanOutcome> {
    const { job, location } = buildJob(jobId, req);
    try {
      // Milliseconds per step, for the log line an operator reads first when scans get slow (the scanners log theirs).
      const t0 = Date.now();
      const report = await runChildJob(deps.dispatcher, job, { report: reportCaseOf(req), timeoutMs: config.scanTimeoutMs, location });
      const t1 = Date.now();
      const outcome = scanOutcome(req, jobId, report, base);
      const t2 = Date.now();
      try {
        await storeReport(principal, req, outcome, keyed);
      } catch (err) {
        throw Object.assign(unavailable("the report store"), { detail: String(err) });
      }
      const t3 = Date.now();
      await settle(reservationId, log, commitBy);
      log.info({ phase_ms: { reserve: reserveMs, scan: t1 - t0, render: t2 - t1, store: t3 - t2, commit: Date.now() - t3 } }, "scan done");
      return outcome;
    } catch (err) {
      // The one place a failed scan is caught and logged.
      const { apiErr, log: fields } = answerFor(err, req, location);
      const detail = (err as { detail?: unknown }).detail;
      log[apiErr.type === "payload_error" ? "info" : "warn"]({ error_type: apiErr.type, ...fields, ...(detail ? { detail } : {}) }, "scan failed");
      // Not charged: whatever went wrong after the reservation, give the scan back.
      await refund(reservationId, log);
      throw apiErr;
    }
  }

  async function getReport(principal: Principal, jobId: string) {
    try {
      const res = await deps.reports.getReport({ jobId, customerId: principal.customerId }, { timeoutMs: rpcTimeoutMs });
      if (!res.report || res.report.customerId !== principal.customerId) throw notFound(`no report ${jobId} for this API key`);
      return { json: res.report.json, reportKind: res.report.reportKind };
    } catch (err) {
      if (err instanceof ApiError) throw err;
      if (err instanceof ConnectError && (err.code === Code.NotFound || err.code === Code.PermissionDenied)) {
        throw notFound(`no report ${jobId} for this API key`);
      }
      throw unavailable("the report store");
    }
  }

  async function listWorkspaceReports(principal: Principal, workspaceId: number, pageSize: number, pageToken: string) {
    try {
      const res = await deps.reports.listWorkspaceReports(
        { customerId: principal.customerId, workspaceId: BigInt(workspaceId), pageSize, pageToken },
        { timeoutMs: rpcTimeoutMs },
      );
      return {
        reports: res.reports.map((r) => ({
          job_id: r.jobId,
          name: r.name,
          report_kind: r.reportKind,
          created_at: new Date(Number(r.createdUnixMs)).toISOString(),
        })),
        next_page_token: res.nextPageToken,
      };
    } catch (err) {
      if (err instanceof ConnectError && err.code === Code.InvalidArgument) throw payloadError("page_token: invalid");
      throw unavailable("the report store");
    }
  }

  async function getReportByPageToken(token: string) {
    try {
      const res = await deps.reports.getReportByPageToken({ pageToken: token }, { timeoutMs: rpcTimeoutMs });
      return res.report;
    } catch (err) {
      if (err instanceof ConnectError && err.code === Code.NotFound) return undefined;
      throw unavailable("the report store");
    }
  }

  async function getArtifact(id: string) {
    try {
      const res = await deps.reports.getArtifact({ id }, { timeoutMs: rpcTimeoutMs });
      return { data: res.data, mimeType: res.mimeType };
    } catch (err) {
      if (err instanceof ConnectError && err.code === Code.NotFound) return undefined;
      throw unavailable("the report store");
    }
  }

  return { authenticate, scan, getReport, listWorkspaceReports, getReportByPageToken, getArtifact };
}
