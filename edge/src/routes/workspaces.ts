import type { FastifyInstance } from "fastify";
import { requireApiKey } from "../auth-hook.ts";
import type { EdgeContext } from "../context.ts";
import { payloadError } from "../errors.ts";
import { checkAllowedDomains } from "../validation/request.ts";

/** A workspace that can have settings: 1 or more (0 is "no workspace"). */
function workspaceOf(raw: string): number {
  const n = /^\d{1,16}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(n) || n < 1) throw payloadError("workspace_id: must be a positive integer");
  return n;
}

// Only wiring: the behaviour lives in scan/workspace-settings.ts.
export function registerWorkspaceRoutes(app: FastifyInstance, ctx: EdgeContext): void {
  const onRequest = requireApiKey(ctx);
  app.get<{ Params: { workspace_id: string } }>("/v3/workspaces/:workspace_id/settings", { onRequest }, async (req) =>
    ctx.useCases.workspaces.get(req.principal!, workspaceOf(req.params.workspace_id)));
  app.put<{ Params: { workspace_id: string }; Body: unknown }>("/v3/workspaces/:workspace_id/settings", { onRequest }, async (req) => {
    const workspaceId = workspaceOf(req.params.workspace_id);
    const body = req.body;
    if (!body || typeof body !== "object" || Array.isArray(body)) throw payloadError("body: a JSON object is required");
    const unknown = Object.keys(body).filter((k) => k !== "allowed_domains");
    if (unknown.length > 0) throw payloadError(`${unknown[0]!.slice(0, 64)}: unknown field`);
    const list = (body as { allowed_domains?: unknown }).allowed_domains;
    if (list === undefined) throw payloadError("allowed_domains: required (an empty array clears it)");
    return ctx.useCases.workspaces.put(req.principal!, workspaceId, checkAllowedDomains(list).vendorAllowlist ?? []);
  });
}
