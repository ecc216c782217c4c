import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import { AccessLog } from "./access-log.ts";
import { ApiError, notFound, payloadError, processingError } from "./errors.ts";
import type { EdgeContext } from "./context.ts";
import { createEdgeMetrics } from "./metrics.ts";
import { DEFAULT_LIMITS, type EdgeDeps } from "./ports.ts";
import { registerConsoleRoutes } from "./routes/console.ts";
import { registerOpsRoutes } from "./routes/ops.ts";
import { registerReportRoutes } from "./routes/reports.ts";
import { registerScanRoutes } from "./routes/scan.ts";
import { registerWorkspaceRoutes } from "./routes/workspaces.ts";
import { createEdgeUseCases } from "./use-cases.ts";
import { knownSpecId } from "./validation/spec-ids.ts";

export function sendApiError(reply: FastifyReply, err: ApiError): FastifyReply {
  if (err.retryAfterSeconds !== undefined) reply.header("retry-after", String(err.retryAfterSeconds));
  return reply.code(err.status).header("content-type", "application/json; charset=utf-8").send(JSON.stringify(err.body()));
}

// Fastify's own errors (body limit, bad JSON, bad URL, ...) mapped onto the documented error types. Everything else
// is a processing_error with a fixed message: the client never sees internals.
function toApiError(err: FastifyError): ApiError {
  if (err instanceof ApiError) return err;
  switch (err.code) {
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return payloadError("body: larger than the limit");
    case "FST_ERR_CTP_INVALID_CONTENT_LENGTH":
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
    case "FST_ERR_CTP_INVALID_JSON_BODY":
      return payloadError("body: must be a JSON object");
    case "FST_ERR_BAD_URL":
    case "FST_ERR_ASYNC_CONSTRAINT":
      return notFound();
  }
  if (err.statusCode === 413) return payloadError("body: larger than the limit");
  return processingError("the request could not be processed; retry later");
}

/**
 * The edge HTTP app: the four scan endpoints, stored reports, report pages, artifacts, health, OpenAPI, docs and
 * metrics. Dependencies are injected (tests pass in-memory fakes; main.ts passes Connect clients and the NATS
 * dispatcher). The app is not listening; call `listen` or `inject`.
 */
export async function buildEdgeApp(deps: EdgeDeps): Promise<FastifyInstance> {
  return (await buildEdge(deps)).app;
}

/** The app plus the pieces the gRPC listener shares with it (one set of use-cases, one spec-id check). */
export async function buildEdge(deps: EdgeDeps): Promise<{ app: FastifyInstance; ctx: EdgeContext }> {
  const limits = { ...DEFAULT_LIMITS, ...deps.config.limits };
  deps = { ...deps, config: { ...deps.config, limits } };
  const isKnownSpecId = deps.isKnownSpecId ?? knownSpecId;
  const app = Fastify({
    loggerInstance: deps.logger,
    bodyLimit: limits.maxBodyBytes,
    // Requests are short-lived except scans, which are bounded by scanTimeoutMs; give headroom above it.
    requestTimeout: deps.config.scanTimeoutMs + 30_000,
    return503OnClosing: true,
    logController: new AccessLog(),
    frameworkErrors: (err, _req, reply) => {
      sendApiError(reply, toApiError(err));
    },
  });
  const ctx: EdgeContext = {
    deps,
    useCases: createEdgeUseCases(deps),
    metrics: createEdgeMetrics(deps.metricsRegistry),
    isKnownSpecId,
  };

  app.decorateRequest("principal", undefined);

  // Every JSON body goes through one parser, whatever the Content-Type says: a body that is not JSON is a
  // payload_error (with the documented shape), never Fastify's 415. The scan endpoints have their own, which reads
  // the body as it streams in and keeps only what validation needs (routes/scan.ts, validation/scan-body-reader.ts).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "buffer" }, (_req: FastifyRequest, body: Buffer | string, done) => {
    const text = typeof body === "string" ? body : body.toString("utf8");
    if (text.trim() === "") return done(payloadError("body: a JSON object is required"), undefined);
    try {
      done(null, JSON.parse(text));
    } catch {
      done(payloadError("body: not valid JSON"), undefined);
    }
  });

  app.setNotFoundHandler((req, reply) => {
    const path = (req.url.split("?")[0] ?? "").slice(0, 200);
    sendApiError(reply, notFound(`no endpoint ${req.method} ${path}`));
  });

  app.setErrorHandler((err: FastifyError, req, reply) => {
    const apiErr = toApiError(err);
    if (!(err instanceof ApiError) && apiErr.type === "processing_error") req.log.error({ err }, "unhandled error");
    sendApiError(reply, apiErr);
  });

  app.addHook("onResponse", async (req, reply) => {
    ctx.metrics.httpRequests.inc({ route: req.routeOptions.url ?? "unmatched", method: req.method, status: String(reply.statusCode) });
  });

  registerScanRoutes(app, ctx);
  registerReportRoutes(app, ctx);
  registerWorkspaceRoutes(app, ctx);
  registerOpsRoutes(app, ctx);
  registerConsoleRoutes(app, ctx);
  return { app, ctx };
}
