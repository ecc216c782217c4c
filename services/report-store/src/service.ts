import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, type ServiceImpl } from "@connectrpc/connect";
import { reportstore } from "@cva/contracts";
import type { ArtifactStore, Logger } from "@cva/platform";
import type { ReportStore } from "./store.ts";
import type { WorkspaceSettingsStore } from "./workspace-settings.ts";

const MIME = /^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*$/i;

// Deliberately one message for "absent" and "someone else's": NOT_FOUND must not reveal that a report exists.
const reportNotFound = () => new ConnectError("report not found", Code.NotFound);

// The store's refusals (DomainError of @cva/platform) become Connect codes in the service host's one interceptor;
// anything else (NATS down) is logged there and leaves the process only as an opaque UNAVAILABLE, without internal
// addresses or stack traces.
export function createReportStoreService(
  store: ReportStore,
  artifacts: ArtifactStore,
  logger?: Logger,
  workspaces?: WorkspaceSettingsStore,
): ServiceImpl<typeof reportstore.ReportStoreService> {
  const settings = () => {
    if (!workspaces) throw new ConnectError("workspace settings are not stored by this report store", Code.Unimplemented);
    return workspaces;
  };
  return {
    async putReport(req) {
      if (!req.report) throw new ConnectError("report is required", Code.InvalidArgument);
      await store.put(req.report);
      logger?.debug({ job_id: req.report.jobId }, "report stored");
      return create(reportstore.PutReportResponseSchema, {});
    },

    async getReport(req) {
      const report = await store.get(req.jobId, req.customerId);
      if (!report) throw reportNotFound();
      return create(reportstore.GetReportResponseSchema, { report });
    },

    async getReportByPageToken(req) {
      const report = await store.getByPageToken(req.pageToken);
      if (!report) throw reportNotFound();
      return create(reportstore.GetReportByPageTokenResponseSchema, { report });
    },

    async listWorkspaceReports(req) {
      const page = await store.listWorkspace(req.customerId, req.workspaceId, req.pageSize, req.pageToken);
      return create(reportstore.ListWorkspaceReportsResponseSchema, page);
    },

    async putArtifact(req) {
      if (req.data.length === 0) throw new ConnectError("data is empty", Code.InvalidArgument);
      if (!MIME.test(req.mimeType) || req.mimeType.length > 100) {
        throw new ConnectError("mime_type must be a media type such as image/png", Code.InvalidArgument);
      }
      return create(reportstore.PutArtifactResponseSchema, { id: await artifacts.put(req.data, req.mimeType) });
    },

    async putWorkspaceSettings(req) {
      if (!req.settings) throw new ConnectError("settings is required", Code.InvalidArgument);
      const stored = await settings().put(req.settings);
      logger?.info({ workspace_id: String(stored.workspaceId), allowed_domains: stored.allowedDomains.length }, "workspace settings stored");
      return create(reportstore.PutWorkspaceSettingsResponseSchema, { settings: stored });
    },

    async getWorkspaceSettings(req) {
      return create(reportstore.GetWorkspaceSettingsResponseSchema, { settings: await settings().get(req.customerId, req.workspaceId) });
    },

    async getArtifact(req) {
      const a = await artifacts.get(req.id);
      if (!a) throw new ConnectError("artifact not found", Code.NotFound);
      return create(reportstore.GetArtifactResponseSchema, { data: a.data, mimeType: a.mimeType });
    },
  };
}
