import type { FastifyInstance, FastifyReply, FastifyRequest, RequestPayload } from "fastify";
import { requireApiKey } from "../auth-hook.ts";
import { SCAN_ENDPOINTS } from "../constants.ts";
import type { EdgeContext } from "../context.ts";
import { ApiError } from "../errors.ts";
import type { Admitted, AtCap } from "../scan/admission.ts";
import { parseIdempotencyKey } from "../validation/idempotency-key.ts";
import { fileLimitOf } from "../scan/job.ts";
import { isFileKind } from "../scan/types.ts";
import { isMultipart, MultipartScanBody, readMultipartScan } from "../validation/multipart-reader.ts";
import { FILE_WHAT, parseScanBody } from "../validation/request.ts";
import { readScanBody } from "../validation/scan-body-reader.ts";
import { VIEW_SCHEMAS } from "../views/index.ts";

// The scan endpoints: key (onRequest) → admission (preParsing, before a byte of the body is read) → the body read as
// a stream, kept or — for a customer at its in-flight cap — only checked and digested (content-type parser) →
// validation → the scan use-cases. Each endpoint is its own plugin scope, so its body parser knows the endpoint.

interface Admission {
  ticket: Admitted | AtCap;
  // The handler is still answering: the count is released when it has (a client that leaves mid-scan does not
  // free its place while its scan runs).
  busy: boolean;
  closed: boolean;
}
const admissions = new WeakMap<FastifyRequest, Admission>();

function release(a: Admission): void {
  if ("release" in a.ticket) a.ticket.release();
}

export function registerScanRoutes(app: FastifyInstance, ctx: EdgeContext): void {
  const onRequest = requireApiKey(ctx);
  const { limits } = ctx.deps.config;

  for (const ep of SCAN_ENDPOINTS) {
    app.register(async (scope) => {
      async function preParsing(req: FastifyRequest, reply: FastifyReply, payload: RequestPayload) {
        const a: Admission = { ticket: ctx.useCases.admission.enter(req.principal!.customerId, ep.kind), busy: false, closed: false };
        admissions.set(req, a);
        const done = () => {
          a.closed = true;
          if (!a.busy) release(a);
        };
        if (reply.raw.destroyed) done();
        else reply.raw.once("close", done);
        return payload;
      }

      // Every body goes through this parser whatever its Content-Type: a body that is not JSON is a payload_error.
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser("*", (req, payload, done) => {
        const a = admissions.get(req);
        const length = Number(req.headers["content-length"]);
        // The raw-file scans also take multipart/form-data: the file part streamed into the uploads bucket.
        if (isFileKind(ep.kind) && isMultipart(req.headers["content-type"])) {
          return void readMultipartScan(payload, req.headers, {
            maxBytes: fileLimitOf(ep.kind, limits),
            what: FILE_WHAT[ep.kind],
            keep: !a || "release" in a.ticket,
            uploads: ctx.deps.uploads,
            contentLength: Number.isNaN(length) ? undefined : length,
          }).then((body) => done(null, body), (err: Error) => done(err, undefined));
        }
        readScanBody(payload, {
          kind: ep.kind,
          limits,
          keepPayload: !a || "release" in a.ticket,
          contentLength: Number.isNaN(length) ? undefined : length,
        }).then((body) => done(null, body), (err: Error) => done(err, undefined));
      });

      scope.post(ep.path, { onRequest, preParsing, schema: { response: { 200: VIEW_SCHEMAS[ep.kind] } } }, async (req, reply) => {
        const started = process.hrtime.bigint();
        const a = admissions.get(req);
        if (a) a.busy = true;
        try {
          const withheld = a && "atCap" in a.ticket ? a.ticket.atCap : undefined;
          const scanReq = parseScanBody(ep.kind, req.body, { limits, isKnownSpecId: ctx.isKnownSpecId, withheld });
          const idempotencyKey = parseIdempotencyKey(req.headers["idempotency-key"]);
          const outcome = await ctx.useCases.scans.scan(req.principal!, scanReq, req.log, { idempotencyKey });
          ctx.metrics.scans.inc({ kind: ep.kind, outcome: outcome.replayed ? "replayed" : "ok" });
          if (outcome.replayed) reply.header("idempotent-replayed", "true");
          ctx.metrics.scanDuration.observe({ kind: ep.kind }, Number(process.hrtime.bigint() - started) / 1e9);
          // Already serialized with the view's schema; sent as is so the stored bytes equal the returned ones.
          return reply.header("content-type", "application/json; charset=utf-8").send(outcome.json);
        } catch (err) {
          ctx.metrics.scans.inc({ kind: ep.kind, outcome: err instanceof ApiError ? err.type : "processing_error" });
          throw err;
        } finally {
          // A file this request streamed into the uploads bucket is removed once it is answered, whatever the answer.
          const stored = req.body instanceof MultipartScanBody ? req.body.file?.stored : undefined;
          if (stored) await ctx.deps.uploads?.delete(stored.object).catch((err: unknown) => req.log.warn({ err: String(err) }, "an upload could not be removed; the bucket's TTL removes it"));
          if (a) {
            a.busy = false;
            if (a.closed) release(a);
          }
        }
      });
    });
  }
}
