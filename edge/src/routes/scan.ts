import type { FastifyInstance } from "fastify";
import { requireApiKey } from "../auth-hook.ts";
import { SCAN_ENDPOINTS } from "../constants.ts";
import type { EdgeContext } from "../context.ts";
import { ApiError } from "../errors.ts";
import { parseIdempotencyKey } from "../validation/idempotency-key.ts";
import { parseScanBody } from "../validation/request.ts";
import { VIEW_SCHEMAS } from "../views/index.ts";

export function registerScanRoutes(app: FastifyInstance, ctx: EdgeContext): void {
  const onRequest = requireApiKey(ctx);
  for (const ep of SCAN_ENDPOINTS) {
    app.post(ep.path, { onRequest, schema: { response: { 200: VIEW_SCHEMAS[ep.kind] } } }, async (req, reply) => {
      const started = process.hrtime.bigint();
      try {
        const scanReq = parseScanBody(ep.kind, req.body, { limits: ctx.deps.config.limits, isKnownSpecId: ctx.isKnownSpecId });
        const idempotencyKey = parseIdempotencyKey(req.headers["idempotency-key"]);
        const outcome = await ctx.useCase.scan(req.principal!, scanReq, req.log, { idempotencyKey });
        ctx.metrics.scans.inc({ kind: ep.kind, outcome: outcome.replayed ? "replayed" : "ok" });
        if (outcome.replayed) reply.header("idempotent-replayed", "true");
        ctx.metrics.scanDuration.observe({ kind: ep.kind }, Number(process.hrtime.bigint() - started) / 1e9);
        // Already serialized with the view's schema; sent as is so the stored bytes equal the returned ones.
        return reply.header("content-type", "application/json; charset=utf-8").send(outcome.json);
      } catch (err) {
        ctx.metrics.scans.inc({ kind: ep.kind, outcome: err instanceof ApiError ? err.type : "processing_error" });
        throw err;
      }
    });
  }
}
