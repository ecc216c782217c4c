import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { Code, ConnectError } from "@connectrpc/connect";
import { auth, type reportstore, type ScanJobResult } from "@cva/contracts";
import { processingError } from "../errors.ts";
import type { EdgeDeps } from "../ports.ts";
import { callSettings } from "./calls.ts";
import { KIND_OF } from "./job.ts";
import { replayedOutcome } from "./outcome.ts";
import { requestHash } from "./request-hash.ts";
import type { ScanSaga } from "./saga.ts";
import { inFlightRefusal, type Lane } from "./in-flight-caps.ts";
import type { Principal, ReceivedScanRequest, ScanOptions, ScanOutcome, ScanRequestFields } from "./types.ts";

// Every scan request enters here, with or without an Idempotency-Key. Auth's reservation answers which way it goes:
// a fresh reservation runs the scan saga; a key whose scan is done replays that scan's stored report; a key whose
// scan still runs waits for it — and, when the edge that ran it is gone (its worker's result stored, nobody storing
// the report), takes it over: stores its report and commits its reservation as that edge would have.

type Log = EdgeDeps["logger"];

export interface Scans {
  /**
   * Reserves quota, runs the scan, stores the rendered report, commits the reservation; refunds on every failure
   * after the reservation. With an idempotency key, a retry of the same request answers the first scan's report.
   * A withheld request (its payload not kept: scan/admission.ts) gets every answer but a scan of its own.
   */
  scan(principal: Principal, req: ReceivedScanRequest, log?: Log, opts?: ScanOptions): Promise<ScanOutcome>;
}

export function createIdempotentScans(deps: Pick<EdgeDeps, "reports" | "dispatcher" | "config" | "logger"> & { saga: ScanSaga }): Scans {
  const { config, saga } = deps;
  const { rpcTimeoutMs, retryAfter, reservationTtlMs, unavailable } = callSettings(config);

  async function scan(principal: Principal, req: ReceivedScanRequest, parentLog?: Log, opts: ScanOptions = {}): Promise<ScanOutcome> {
    const key = opts.idempotencyKey;
    const idem = key === undefined ? undefined : { key, hash: "withheld" in req ? req.withheld.requestHash : requestHash(req) };
    const rootLog = parentLog ?? deps.logger;
    // A retry while the first scan with its key still runs asks again until that scan is done or released (failed:
    // then this one runs), within the scan time-out.
    const waitUntil = Date.now() + config.scanTimeoutMs;
    let resultSince: number | undefined;
    for (let pause = 100; ; pause = Math.min(2 * pause, 1000)) {
      const jobId = randomUUID();
      // Before the call: auth's expiry for this reservation is no earlier than this + its TTL.
      const reservedAt = Date.now();
      const res = await saga.reserve(principal, req, jobId, idem, rootLog.child({ job_id: jobId, report_kind: req.kind }));
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
      if ("withheld" in req) {
        // Its customer was at the in-flight cap when it arrived and the edge did not keep its payload: not scanned.
        // It was reserved check-only (saga.ts): nothing is held, unless an auth older than check_only held it anyway.
        const log = rootLog.child({ job_id: jobId, report_kind: req.kind });
        if (res.reservationId) await saga.refund(res.reservationId, log);
        log.info({ lane: req.withheld.lane, max_in_flight: req.withheld.max }, "request withheld at the customer's in-flight cap: not scanned");
        throw inFlightRefusal({ lane: req.withheld.lane as Lane, max: req.withheld.max }, retryAfter);
      }
      const reservation = { jobId, reservationId: res.reservationId, commitBy: reservedAt + reservationTtlMs, keyed: key !== undefined, reserveMs: Date.now() - reservedAt };
      return saga.run(principal, req, reservation, rootLog.child({ job_id: jobId, report_kind: req.kind }));
    }
  }

  async function storedResult(jobId: string, req: ScanRequestFields): Promise<ScanJobResult | undefined> {
    if (!deps.dispatcher.resultOf) return undefined;
    return deps.dispatcher.resultOf(jobId, KIND_OF[req.kind].kind).catch(() => undefined);
  }

  // The answer of the earlier scan with this key: its stored report, as first returned (JSON bytes and protobuf).
  async function replay(principal: Principal, req: ScanRequestFields, jobId: string, log: Log): Promise<ScanOutcome> {
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
  async function takeOver(principal: Principal, req: ScanRequestFields, jobId: string, reservationId: string, result: ScanJobResult, log: Log) {
    let outcome: ScanOutcome;
    try {
      outcome = await saga.outcomeOf(req, jobId, result);
    } catch (err) {
      log.info({ detail: String(err) }, "the running scan with this Idempotency-Key failed and its edge is gone: releasing it");
      await saga.refund(reservationId, log);
      return undefined;
    }
    // That edge's reservation was held and unexpired a moment ago: it expires within one TTL from now.
    const commitBy = Date.now() + reservationTtlMs;
    try {
      await saga.store(principal, req, outcome, true);
    } catch (err) {
      if (!(err instanceof ConnectError && err.code === Code.AlreadyExists)) {
        log.warn({ err: String(err) }, "storing the report of a taken-over scan failed");
        throw unavailable("the report store");
      }
      await saga.settle(reservationId, log, commitBy, { principal, req, jobId });
      return replay(principal, req, jobId, log);
    }
    await saga.settle(reservationId, log, commitBy, { principal, req, jobId });
    log.info({ reservation_id: reservationId }, "finished the scan of an edge that is gone, from its stored result");
    return { ...outcome, replayed: true };
  }

  return { scan };
}
