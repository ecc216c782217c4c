import { Code, ConnectError } from "@connectrpc/connect";
import type { reportstore } from "@cva/contracts";
import { ApiError, notFound, payloadError } from "../errors.ts";
import type { EdgeDeps } from "../ports.ts";
import { callSettings } from "./calls.ts";
import type { Principal } from "./types.ts";

// Reading what was stored: a customer's report by job id, a workspace's list, a report page by its capability token,
// an image by its id. The report store's answers become the documented errors (another customer's report is
// "not found": its existence is not revealed).

export interface WorkspacePage {
  reports: Array<{ job_id: string; name: string; report_kind: string; created_at: string }>;
  next_page_token: string;
}

export interface ReportReads {
  getReport(principal: Principal, jobId: string): Promise<{ json: Uint8Array; reportKind: string }>;
  listWorkspaceReports(principal: Principal, workspaceId: number, pageSize: number, pageToken: string): Promise<WorkspacePage>;
  /** undefined: no report behind the token. */
  getReportByPageToken(token: string): Promise<reportstore.StoredReport | undefined>;
  /** undefined: no such image. */
  getArtifact(id: string): Promise<{ data: Uint8Array; mimeType: string } | undefined>;
}

export function createReportReads(deps: Pick<EdgeDeps, "reports" | "config">): ReportReads {
  const { rpcTimeoutMs, unavailable } = callSettings(deps.config);
  const { reports } = deps;

  return {
    async getReport(principal, jobId) {
      try {
        const res = await reports.getReport({ jobId, customerId: principal.customerId }, { timeoutMs: rpcTimeoutMs });
        if (!res.report || res.report.customerId !== principal.customerId) throw notFound(`no report ${jobId} for this API key`);
        return { json: res.report.json, reportKind: res.report.reportKind };
      } catch (err) {
        if (err instanceof ApiError) throw err;
        if (err instanceof ConnectError && (err.code === Code.NotFound || err.code === Code.PermissionDenied)) {
          throw notFound(`no report ${jobId} for this API key`);
        }
        throw unavailable("the report store");
      }
    },

    async listWorkspaceReports(principal, workspaceId, pageSize, pageToken) {
      try {
        const res = await reports.listWorkspaceReports(
          { customerId: principal.customerId, workspaceId: BigInt(workspaceId), pageSize, pageToken },
          { timeoutMs: rpcTimeoutMs },
        );
        return {
          reports: res.reports.map((r) => ({
            job_id: r.jobId,
            name: r.name,
            report_kind: r.reportKind,
            created_at: new Date(Number(r.createdUnixMs)).toISOString(),
          })),
          next_page_token: res.nextPageToken,
        };
      } catch (err) {
        if (err instanceof ConnectError && err.code === Code.InvalidArgument) throw payloadError("page_token: invalid");
        throw unavailable("the report store");
      }
    },

    async getReportByPageToken(token) {
      try {
        const res = await reports.getReportByPageToken({ pageToken: token }, { timeoutMs: rpcTimeoutMs });
        return res.report;
      } catch (err) {
        if (err instanceof ConnectError && err.code === Code.NotFound) return undefined;
        throw unavailable("the report store");
      }
    },

    async getArtifact(id) {
      try {
        const res = await reports.getArtifact({ id }, { timeoutMs: rpcTimeoutMs });
        return { data: res.data, mimeType: res.mimeType };
      } catch (err) {
        if (err instanceof ConnectError && err.code === Code.NotFound) return undefined;
        throw unavailable("the report store");
      }
    },
  };
}
