import type { FastifyInstance } from "fastify";
import { requireApiKey } from "../auth-hook.ts";
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from "../constants.ts";
import type { EdgeContext } from "../context.ts";
import { notFound, payloadError } from "../errors.ts";
import { REPORT_ASSETS, reportPageCsp, sendAsset } from "../report-page/assets.ts";
import { renderReportPage } from "../report-page/render.ts";

const JOB_ID = /^[A-Za-z0-9_-]{1,128}$/;
const ARTIFACT_ID = /^[A-Za-z0-9._~-]{1,256}$/;
const PAGE_TOKEN = /^[A-Za-z0-9_-]{1,128}$/;
// Image types the artifact store is allowed to hand out; anything else is served as opaque bytes, never as
// something a browser would render as a document.
const IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/webp", "image/gif"]);

export function registerReportRoutes(app: FastifyInstance, ctx: EdgeContext): void {
  const onRequest = requireApiKey(ctx);

  app.get<{ Params: { job_id: string } }>("/v3/reports/:job_id", { onRequest }, async (req, reply) => {
    const { job_id } = req.params;
    if (!JOB_ID.test(job_id)) throw notFound(`no report ${job_id.slice(0, 128)} for this API key`);
    const { json } = await ctx.useCases.reports.getReport(req.principal!, job_id);
    return reply.header("content-type", "application/json; charset=utf-8").send(Buffer.from(json));
  });

  app.get<{ Params: { workspace_id: string }; Querystring: Record<string, string | string[] | undefined> }>(
    "/v3/workspaces/:workspace_id/reports",
    { onRequest },
    async (req, reply) => {
      const ws = req.params.workspace_id;
      const workspaceId = /^\d{1,16}$/.test(ws) ? Number(ws) : NaN;
      if (!Number.isSafeInteger(workspaceId)) throw payloadError("workspace_id: must be a non-negative integer");
      const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);
      const sizeRaw = one(req.query.page_size);
      let pageSize = DEFAULT_PAGE_SIZE;
      if (sizeRaw !== undefined) {
        if (!/^\d{1,4}$/.test(sizeRaw) || Number(sizeRaw) < 1 || Number(sizeRaw) > MAX_PAGE_SIZE) {
          throw payloadError(`page_size: must be an integer from 1 to ${MAX_PAGE_SIZE}`);
        }
        pageSize = Number(sizeRaw);
      }
      const pageToken = one(req.query.page_token) ?? "";
      if (pageToken.length > 1024) throw payloadError("page_token: invalid");
      const page = await ctx.useCases.reports.listWorkspaceReports(req.principal!, workspaceId, pageSize, pageToken);
      return reply.header("content-type", "application/json; charset=utf-8").send(JSON.stringify(page));
    },
  );

  // Capability URLs: the token / id is the authorization; no API key.
  const reportCsp = reportPageCsp(ctx.deps.config.publicBaseUrl);
  for (const asset of REPORT_ASSETS) app.get(asset.path, async (req, reply) => sendAsset(req, reply, asset));
  app.get<{ Params: { token: string } }>("/r/:token", async (req, reply) => {
    const { token } = req.params;
    const stored = PAGE_TOKEN.test(token) ? await ctx.useCases.reports.getReportByPageToken(token) : undefined;
    if (!stored) throw notFound("no such report page");
    const html = renderReportPage(stored, { publicBaseUrl: ctx.deps.config.publicBaseUrl });
    return reply
      .header("content-type", "text/html; charset=utf-8")
      .header("content-security-policy", reportCsp)
      .header("x-content-type-options", "nosniff")
      .header("referrer-policy", "no-referrer")
      .header("cache-control", "private, max-age=300")
      .send(html);
  });

  app.get<{ Params: { id: string } }>("/artifacts/:id", async (req, reply) => {
    const { id } = req.params;
    const art = ARTIFACT_ID.test(id) ? await ctx.useCases.reports.getArtifact(id) : undefined;
    if (!art) throw notFound("no such artifact");
    const body = Buffer.from(art.data.buffer, art.data.byteOffset, art.data.byteLength);
    return reply
      .header("content-type", IMAGE_TYPES.has(art.mimeType) ? art.mimeType : "application/octet-stream")
      .header("content-length", String(body.length))
      // Artifacts are immutable (content behind an unguessable id), so clients and CDNs may keep them.
      .header("cache-control", "public, max-age=31536000, immutable")
      .header("x-content-type-options", "nosniff")
      .send(body);
  });
}
