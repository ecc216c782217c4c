import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, type ServiceImpl } from "@connectrpc/connect";
import { reportstore } from "@cva/contracts";
import type { ArtifactStore, Logger } from "@cva/platform";
import { ReportStoreError } from "./errors.ts";
import type { ReportStore } from "./store.ts";

const MIME = /^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*$/i;

// Deliberately one message for "absent" and "someone else's": NOT_FOUND must not reveal that a report exists.
const reportNotFound = () => new ConnectError("report not found", Code.NotFound);

export function createReportStoreService(
  store: ReportStore,
  artifacts: ArtifactStore,
  logger?: Logger,
): ServiceImpl<typeof reportstore.ReportStoreService> {
  // Domain errors become Connect codes; anything else (NATS down) is logged here and leaves the process only as an
  // opaque Unavailable, without internal addresses or stack traces.
  async function rpc<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof ConnectError) throw err;
      if (err instanceof ReportStoreError) {
        throw new ConnectError(err.message, err.kind === "already_exists" ? Code.AlreadyExists : Code.InvalidArgument);
      }
      logger?.error({ err }, "report-store rpc failed");
      throw new ConnectError("report store unavailable", Code.Unavailable);
    }
  }

  return {
    putReport: (req) =>
      rpc(async () => {
        if (!req.report) throw new ConnectError("report is required", Code.InvalidArgument);
        await store.put(req.report);
        logger?.debug({ job_id: req.report.jobId }, "report stored");
        return create(reportstore.PutReportResponseSchema, {});
      }),

    getReport: (req) =>
      rpc(async () => {
        const report = await store.get(req.jobId, req.customerId);
        if (!report) throw reportNotFound();
        return create(reportstore.GetReportResponseSchema, { report });
      }),

    getReportByPageToken: (req) =>
      rpc(async () => {
        const report = await store.getByPageToken(req.pageToken);
        if (!report) throw reportNotFound();
        return create(reportstore.GetReportByPageTokenResponseSchema, { report });
      }),

    listWorkspaceReports: (req) =>
      rpc(async () => {
        const page = await store.listWorkspace(req.customerId, req.workspaceId, req.pageSize, req.pageToken);
        return create(reportstore.ListWorkspaceReportsResponseSchema, page);
      }),

    putArtifact: (req) =>
      rpc(async () => {
        if (req.data.length === 0) throw new ConnectError("data is empty", Code.InvalidArgument);
        if (!MIME.test(req.mimeType) || req.mimeType.length > 100) {
          throw new ConnectError("mime_type must be a media type such as image/png", Code.InvalidArgument);
        }
        return create(reportstore.PutArtifactResponseSchema, { id: await artifacts.put(req.data, req.mimeType) });
      }),

    getArtifact: (req) =>
      rpc(async () => {
        const a = await artifacts.get(req.id);
        if (!a) throw new ConnectError("artifact not found", Code.NotFound);
        return create(reportstore.GetArtifactResponseSchema, { data: a.data, mimeType: a.mimeType });
      }),
  };
}
