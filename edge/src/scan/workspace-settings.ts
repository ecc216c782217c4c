import { Code, ConnectError } from "@connectrpc/connect";
import { payloadError } from "../errors.ts";
import type { EdgeDeps } from "../ports.ts";
import { callSettings } from "./calls.ts";
import type { Principal } from "./types.ts";

// A workspace's stored settings (the report store keeps them per customer and workspace, without retention): today its
// approved vendor domains, which every v3 tag and zip scan of the workspace uses when its request gives no
// allowed_domains (scan/saga.ts).

export interface WorkspaceSettingsView {
  workspace_id: number;
  allowed_domains: string[];
  /** When they were last set; null when the workspace has none stored. */
  updated_at: string | null;
}

export interface WorkspaceSettings {
  get(principal: Principal, workspaceId: number): Promise<WorkspaceSettingsView>;
  /** Replaces the settings; an empty list clears them. `allowedDomains` is validated by the caller (checkAllowedDomains). */
  put(principal: Principal, workspaceId: number, allowedDomains: string[]): Promise<WorkspaceSettingsView>;
  /** The workspace's stored allowed_domains for a scan (none for workspace 0, or a store that keeps no settings). */
  allowedDomains(principal: Principal, workspaceId: number): Promise<string[]>;
}

export function createWorkspaceSettings(deps: Pick<EdgeDeps, "reports" | "config">): WorkspaceSettings {
  const { rpcTimeoutMs, unavailable } = callSettings(deps.config);
  const view = (workspaceId: number, s: { allowedDomains: string[]; updatedUnixMs: bigint } | undefined): WorkspaceSettingsView => ({
    workspace_id: workspaceId,
    allowed_domains: [...(s?.allowedDomains ?? [])],
    updated_at: s && s.updatedUnixMs > 0n ? new Date(Number(s.updatedUnixMs)).toISOString() : null,
  });
  const failed = (err: unknown): never => {
    if (err instanceof ConnectError && err.code === Code.InvalidArgument) throw payloadError(err.rawMessage);
    throw unavailable("the report store");
  };
  return {
    async get(principal, workspaceId) {
      try {
        const res = await deps.reports.getWorkspaceSettings({ customerId: principal.customerId, workspaceId: BigInt(workspaceId) }, { timeoutMs: rpcTimeoutMs });
        return view(workspaceId, res.settings);
      } catch (err) {
        return failed(err);
      }
    },
    async put(principal, workspaceId, allowedDomains) {
      try {
        const res = await deps.reports.putWorkspaceSettings(
          { settings: { customerId: principal.customerId, workspaceId: BigInt(workspaceId), allowedDomains } },
          { timeoutMs: rpcTimeoutMs },
        );
        return view(workspaceId, res.settings);
      } catch (err) {
        return failed(err);
      }
    },
    async allowedDomains(principal, workspaceId) {
      if (workspaceId <= 0) return [];
      try {
        const res = await deps.reports.getWorkspaceSettings({ customerId: principal.customerId, workspaceId: BigInt(workspaceId) }, { timeoutMs: rpcTimeoutMs });
        return [...(res.settings?.allowedDomains ?? [])];
      } catch (err) {
        // A report store that keeps no settings has none; any other failure fails the scan (its approved-vendors
        // test cannot be judged without the list) rather than scan it as if no list were set.
        if (err instanceof ConnectError && err.code === Code.Unimplemented) return [];
        throw unavailable("the report store");
      }
    },
  };
}
