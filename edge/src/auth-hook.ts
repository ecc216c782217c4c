import type { FastifyRequest } from "fastify";
import type { EdgeContext } from "./context.ts";

/**
 * The API key, as one onRequest hook for every route that needs it: X-ApiKey → principal, after routing and before
 * the body is read (CONTRACT §5 order: route → key → payload). A missing, empty, unknown or revoked key throws
 * authentication_error, which the app's error handler answers.
 */
export function requireApiKey(ctx: EdgeContext) {
  return async (req: FastifyRequest): Promise<void> => {
    const raw = req.headers["x-apikey"];
    const key = Array.isArray(raw) ? raw[0] : raw;
    req.principal = await ctx.useCases.authenticate(key);
  };
}
