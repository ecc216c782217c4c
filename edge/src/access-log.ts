import { LogController, type FastifyReply, type FastifyRequest } from "fastify";

/**
 * One access-log line per answered request, none on arrival. Requests refused before any work (no or unknown key,
 * no such endpoint) go to debug: an unauthenticated flood must not turn into a log flood — they are counted in the
 * metrics instead (cva_edge_http_requests_total by status).
 */
export class AccessLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, req: FastifyRequest, reply: FastifyReply): void {
    const status = reply.statusCode;
    const line = { method: req.method, path: (req.url.split("?")[0] ?? "").slice(0, 200), status, ms: Math.round(reply.elapsedTime) };
    if (error) reply.log.error({ ...line, err: error }, "request errored");
    else if (status === 401 || status === 404) reply.log.debug(line, "request refused");
    else reply.log.info(line, "request completed");
  }
}
