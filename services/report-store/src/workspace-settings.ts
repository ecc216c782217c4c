import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { reportstore } from "@cva/contracts";
import { invalidArgument, replicatedKvm, WORKSPACES_BUCKET } from "@cva/platform";
import type { KvEntry } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/transport-node";
import { token } from "./encode.ts";

type WorkspaceSettings = reportstore.WorkspaceSettings;

/** As the edge's allowed_domains (edge/src/validation/request.ts): checked again here, the store's own contract. */
export const MAX_ALLOWED_DOMAINS = 200;
const DOMAIN = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;
const MAX_ID = 200;

export interface WorkspaceSettingsStore {
  /** Replaces the workspace's settings (last write wins); returns them as stored. */
  put(settings: WorkspaceSettings): Promise<WorkspaceSettings>;
  /** The workspace's settings: empty (no domains, updated 0) when none were stored, or it is another customer's. */
  get(customerId: string, workspaceId: bigint): Promise<WorkspaceSettings>;
}

const live = (e: KvEntry | null): e is KvEntry => !!e && e.operation === "PUT" && e.length > 0;

function check(customerId: string, workspaceId: bigint): void {
  if (!customerId) throw invalidArgument("customer_id is required");
  if (customerId.length > MAX_ID) throw invalidArgument(`customer_id is longer than ${MAX_ID} characters`);
  if (workspaceId < 1n || workspaceId > BigInt(Number.MAX_SAFE_INTEGER)) throw invalidArgument("workspace_id must be a positive integer");
}

// KV layout of cva_workspaces: w.<customer>.<workspace> → WorkspaceSettings (protobuf). The customer is part of the key:
// a workspace number is the customer's own, and another customer's settings are never read.
export async function createWorkspaceSettingsStore(nc: NatsConnection, opts: { now?: () => number } = {}): Promise<WorkspaceSettingsStore> {
  // No TTL: a setting lives until it is replaced (reports expire with their retention, settings do not).
  const kv = await replicatedKvm(nc).create(WORKSPACES_BUCKET, { history: 1 });
  const now = opts.now ?? Date.now;
  const key = (c: string, w: bigint) => `w.${token(c)}.${w.toString()}`;
  return {
    async put(input) {
      check(input.customerId, input.workspaceId);
      if (input.allowedDomains.length > MAX_ALLOWED_DOMAINS) throw invalidArgument(`allowed_domains: at most ${MAX_ALLOWED_DOMAINS} entries`);
      const domains = [...new Set(input.allowedDomains.map((d) => d.trim().toLowerCase().replace(/\.$/, "").replace(/^\*\./, "")))];
      domains.forEach((d, i) => {
        if (d.length === 0 || d.length > 253 || !DOMAIN.test(d)) throw invalidArgument(`allowed_domains[${i}]: must be a domain name such as ads.example.com`);
      });
      const settings = create(reportstore.WorkspaceSettingsSchema, {
        customerId: input.customerId, workspaceId: input.workspaceId, allowedDomains: domains, updatedUnixMs: BigInt(now()),
      });
      await kv.put(key(input.customerId, input.workspaceId), toBinary(reportstore.WorkspaceSettingsSchema, settings));
      return settings;
    },
    async get(customerId, workspaceId) {
      check(customerId, workspaceId);
      const e = await kv.get(key(customerId, workspaceId));
      if (!live(e)) return create(reportstore.WorkspaceSettingsSchema, { customerId, workspaceId });
      return fromBinary(reportstore.WorkspaceSettingsSchema, e.value);
    },
  };
}
