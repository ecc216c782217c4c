import { create } from "@bufbuild/protobuf";
import type { ConnectRouter, HandlerContext, ServiceImpl } from "@connectrpc/connect";
import { Device, health, scan, type Targeting } from "@cva/contracts";
import { ApiError, asApiError, payloadError, toConnectError } from "../errors.ts";
import type { EdgeDeps, EdgeLimits } from "../ports.ts";
import { withhold } from "../scan/admission.ts";
import type { Principal, ScanRequest, TargetingInput } from "../scan/types.ts";
import type { EdgeUseCases } from "../use-cases.ts";
import {
  checkCountry, checkLanguage, checkPageUrl, checkName, checkSpecId, checkTagBytes, checkVastUrl, checkWorkspaceId,
  checkZipBytes,
} from "../validation/fields.ts";
import { parseIdempotencyKey } from "../validation/idempotency-key.ts";
import { checkAllowedDomains, v3Targeting } from "../validation/request.ts";
import type { SpecIdCheck } from "../validation/spec-ids.ts";
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from "../constants.ts";
import { createFileScan, FILE_CHUNK_BYTES } from "./file-scans.ts";
import { callerKey } from "./key-gate.ts";

// The public scan service over gRPC/Connect/gRPC-web: the same use-cases, validation rules and messages as the JSON
// API; only the framing differs (raw bytes instead of base64, the key in x-apikey metadata, errors as codes).

export interface GrpcDeps {
  useCases: EdgeUseCases;
  limits: EdgeLimits;
  isKnownSpecId: SpecIdCheck;
  /** Where unexpected errors are logged (the JSON app's logger): the client only sees a generic processing error. */
  logger: EdgeDeps["logger"];
  ready?: () => Promise<boolean>;
  /** The uploads bucket the raw-file methods stream into (without it they take only a url). */
  uploads?: EdgeDeps["uploads"];
}

function targetingFrom(t: Targeting | undefined, allowCountryAndPage: boolean): TargetingInput {
  const out: TargetingInput = {};
  if (!t) return out;
  if (t.device === Device.DESKTOP) out.device = "desktop";
  else if (t.device === Device.MOBILE) out.device = "mobile";
  else if (t.device !== Device.UNSPECIFIED) throw payloadError("targeting.device: must be one of desktop, mobile");
  if (t.language !== "") out.language = checkLanguage(t.language, "targeting.language");
  if (allowCountryAndPage) {
    if (t.country !== "") out.country = checkCountry(t.country, "targeting.country");
    if (t.pageUrl !== "") out.pageUrl = checkPageUrl(t.pageUrl, "targeting.page_url");
  }
  return out;
}

function workspaceNumber(v: bigint): number {
  if (v < 0n || v > BigInt(Number.MAX_SAFE_INTEGER)) throw payloadError("workspace_id: must be a non-negative integer");
  return checkWorkspaceId(Number(v), "workspace_id");
}

/** Room for a request's small fields (name, targeting with a 2 KB page_url, ids) beside its payload. */
const FIELDS_BYTES = 64 * 1024;
/** GetReport, ListWorkspaceReports and the health check carry an id, a page token, a service name. */
const SMALL_REQUEST_BYTES = 4 * 1024;
/** A Connect JSON caller sends bytes fields as base64: 4 characters per 3 bytes. */
const base64Bytes = (n: number) => Math.ceil(n / 3) * 4;

/**
 * The largest message each method reads, from the documented limits: an ad tag ≤ 1 MB, a zip ≤ 10 MB (as base64 over
 * Connect JSON, never more than the JSON API's 15 MB body), a VAST URL ≤ 8 KB.
 */
export function readLimitsOf(limits: EdgeLimits): Record<keyof ServiceImpl<typeof scan.ScanService>, number> {
  const tag = base64Bytes(limits.maxTagBytes) + FIELDS_BYTES;
  const zip = Math.min(limits.maxBodyBytes, base64Bytes(limits.maxZipBytes) + FIELDS_BYTES);
  return {
    scanTagV3: tag,
    scanTagV2: tag,
    scanZip: zip,
    scanZipV3: zip,
    scanVast: base64Bytes(limits.maxVastUrlBytes) + FIELDS_BYTES,
    getReport: SMALL_REQUEST_BYTES,
    listWorkspaceReports: SMALL_REQUEST_BYTES,
    // Client streams: per message, a chunk of at most 1 MiB (as base64 over Connect JSON) or the fields.
    scanVideo: base64Bytes(FILE_CHUNK_BYTES) + FIELDS_BYTES,
    scanImage: base64Bytes(FILE_CHUNK_BYTES) + FIELDS_BYTES,
    scanAudio: base64Bytes(FILE_CHUNK_BYTES) + FIELDS_BYTES,
  };
}

/** The adapter's ceiling: the largest per-method limit. */
export const largestReadLimit = (limits: EdgeLimits) => Math.max(...Object.values(readLimitsOf(limits)));

export function registerScanService(router: ConnectRouter, deps: GrpcDeps): void {
  const { useCases, limits, isKnownSpecId } = deps;

  // Errors leave as ConnectErrors with the JSON API's messages; nothing internal crosses. As in the JSON app's error
  // handler (app.ts), anything that is not one of the documented errors — a bug, an internal call's ConnectError that
  // escaped the use case — is logged here and answered with the generic processing_error; the error stays the cause.
  async function handle<T>(ctx: HandlerContext, fn: (p: Principal) => Promise<T>): Promise<T> {
    try {
      // The key gate (server.ts) authenticated the caller before the body was read; routes mounted without it check here.
      const principal = ctx.values.get(callerKey) ?? (await useCases.authenticate(ctx.requestHeader.get("x-apikey") ?? undefined));
      return await fn(principal);
    } catch (err) {
      if (!(err instanceof ApiError)) deps.logger.error({ err, procedure: ctx.method.name }, "unhandled error");
      const apiErr = asApiError(err);
      if (apiErr.retryAfterSeconds !== undefined) ctx.responseTrailer.set("retry-after", String(apiErr.retryAfterSeconds));
      throw toConnectError(apiErr, err);
    }
  }
  // Replays carry no marker here: the response is the first scan's report, as over JSON (which says so in a header).
  // Counted in the edge's in-flight admission as JSON requests are; at the customer's cap the request goes on
  // withheld (answered, never scanned: scan/admission.ts).
  const run = async (p: Principal, req: ScanRequest, ctx: HandlerContext) => {
    const idempotencyKey = parseIdempotencyKey(ctx.requestHeader.get("idempotency-key") ?? undefined, "idempotency-key");
    const ticket = useCases.admission.enter(p.customerId, req.kind);
    try {
      return await useCases.scans.scan(p, "atCap" in ticket ? withhold(req, ticket.atCap) : req, undefined, { idempotencyKey });
    } finally {
      if ("release" in ticket) ticket.release();
    }
  };
  // The fields every v3 scan request shares, checked the same way as on the JSON API.
  const v3Fields = (req: { specId: number; workspaceId: bigint; name: string }) => ({
    specId: checkSpecId(req.specId, "spec_id", isKnownSpecId),
    workspaceId: workspaceNumber(req.workspaceId),
    name: checkName(req.name, "name", limits),
  });

  const scanFile = createFileScan({ useCases, uploads: deps.uploads, limits, v3Fields });

  const impl: ServiceImpl<typeof scan.ScanService> = {
    scanVideo: (reqs, ctx) =>
      handle(ctx, async (p) => create(scan.ScanVideoResponseSchema, { report: (await scanFile("video_v3", reqs, p, ctx)).report as never })),
    scanImage: (reqs, ctx) =>
      handle(ctx, async (p) => create(scan.ScanImageResponseSchema, { report: (await scanFile("image_v3", reqs, p, ctx)).report as never })),
    scanAudio: (reqs, ctx) =>
      handle(ctx, async (p) => create(scan.ScanAudioResponseSchema, { report: (await scanFile("audio_v3", reqs, p, ctx)).report as never })),
    scanTagV3: (req, ctx) =>
      handle(ctx, async (p) => {
        const targeting = v3Targeting(targetingFrom(req.targeting, true));
        const r = await run(p, { kind: "tag_v3", ...v3Fields(req), html: checkTagBytes(req.data, "data", limits), ...checkAllowedDomains(req.allowedDomains), ...targeting }, ctx);
        return create(scan.ScanTagV3ResponseSchema, { report: r.report as never });
      }),
    scanTagV2: (req, ctx) =>
      handle(ctx, async (p) => {
        const targeting = targetingFrom(req.targeting, true);
        const r = await run(p, { kind: "tag_v2", targeting, html: checkTagBytes(req.data, "data", limits) }, ctx);
        return create(scan.ScanTagV2ResponseSchema, { report: r.report as never });
      }),
    scanZip: (req, ctx) =>
      handle(ctx, async (p) => {
        const targeting = targetingFrom(req.targeting, false);
        const r = await run(p, { kind: "zip_v2", targeting, zip: checkZipBytes(req.data, "data", limits) }, ctx);
        return create(scan.ScanZipResponseSchema, { report: r.report as never });
      }),
    scanZipV3: (req, ctx) =>
      handle(ctx, async (p) => {
        const targeting = v3Targeting(targetingFrom(req.targeting, false));
        const r = await run(p, { kind: "zip_v3", ...v3Fields(req), zip: checkZipBytes(req.data, "data", limits), ...checkAllowedDomains(req.allowedDomains), ...targeting }, ctx);
        return create(scan.ScanZipV3ResponseSchema, { report: r.report as never });
      }),
    scanVast: (req, ctx) =>
      handle(ctx, async (p) => {
        const r = await run(p, { kind: "vast_v3", ...v3Fields(req), url: checkVastUrl(req.url, "url", limits) }, ctx);
        return create(scan.ScanVastResponseSchema, { report: r.report as never });
      }),
    getReport: (req, ctx) =>
      handle(ctx, async (p) => {
        const r = await useCases.reports.getReport(p, req.jobId);
        return create(scan.GetReportResponseSchema, { json: r.json, reportKind: r.reportKind });
      }),
    listWorkspaceReports: (req, ctx) =>
      handle(ctx, async (p) => {
        const size = req.pageSize === 0 ? DEFAULT_PAGE_SIZE : req.pageSize;
        if (size < 1 || size > MAX_PAGE_SIZE) throw payloadError(`page_size: must be an integer from 1 to ${MAX_PAGE_SIZE}`);
        const page = await useCases.reports.listWorkspaceReports(p, workspaceNumber(req.workspaceId), size, req.pageToken);
        return create(scan.ListWorkspaceReportsResponseSchema, {
          reports: page.reports.map((r) => ({
            jobId: r.job_id, name: r.name, reportKind: r.report_kind, createdUnixMs: BigInt(Date.parse(r.created_at)),
          })),
          nextPageToken: page.next_page_token,
        });
      }),
  };
  // Each method reads at most what its request can be (readLimits): a GetReport cannot make the edge hold megabytes.
  const readLimits = readLimitsOf(limits);
  for (const method of scan.ScanService.methods) {
    const fn = impl[method.localName as keyof typeof impl];
    router.rpc(method as never, fn as never, { readMaxBytes: readLimits[method.localName as keyof typeof impl] });
  }

  // grpc.health.v1 Check (Watch is left unimplemented: probes use Check).
  const Status = health.HealthCheckResponse_ServingStatus;
  router.service(health.Health, {
    async check(req) {
      if (req.service !== "" && req.service !== scan.ScanService.typeName) {
        return create(health.HealthCheckResponseSchema, { status: Status.SERVICE_UNKNOWN });
      }
      const ok = deps.ready ? await deps.ready().catch(() => false) : true;
      return create(health.HealthCheckResponseSchema, { status: ok ? Status.SERVING : Status.NOT_SERVING });
    },
  }, { readMaxBytes: SMALL_REQUEST_BYTES });
}
