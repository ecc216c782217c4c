import { create } from "@bufbuild/protobuf";
import { reportstore } from "@cva/contracts";
import { startNatsServer } from "@cva/platform/testing/index.ts";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWorkspaceSettingsStore, type WorkspaceSettingsStore } from "../src/workspace-settings.ts";

let nats: Awaited<ReturnType<typeof startNatsServer>>;
let nc: NatsConnection;
let store: WorkspaceSettingsStore;
let now = 1_700_000_000_000;

beforeAll(async () => {
  nats = await startNatsServer();
  nc = await connect({ servers: nats.url });
  store = await createWorkspaceSettingsStore(nc, { now: () => now });
});

afterAll(async () => {
  await nc?.close();
  await nats?.stop();
});

const settings = (customerId: string, workspaceId: bigint, allowedDomains: string[]) =>
  create(reportstore.WorkspaceSettingsSchema, { customerId, workspaceId, allowedDomains });

describe("workspace settings", () => {
  it("stores a workspace's allowed_domains (normalised), per customer, replaced by the next put", async () => {
    expect(await store.get("alice", 7n)).toMatchObject({ allowedDomains: [], updatedUnixMs: 0n });
    const put = await store.put(settings("alice", 7n, ["*.Doubleclick.net", "adsrvr.org.", "adsrvr.org"]));
    expect(put).toMatchObject({ customerId: "alice", workspaceId: 7n, allowedDomains: ["doubleclick.net", "adsrvr.org"], updatedUnixMs: 1_700_000_000_000n });
    expect((await store.get("alice", 7n)).allowedDomains).toEqual(["doubleclick.net", "adsrvr.org"]);
    // Workspace 7 of another customer is another workspace.
    expect((await store.get("mallory", 7n)).allowedDomains).toEqual([]);
    now += 1000;
    await store.put(settings("alice", 7n, []));
    expect(await store.get("alice", 7n)).toMatchObject({ allowedDomains: [], updatedUnixMs: 1_700_000_001_000n });
  });

  it("refuses what is not a setting", async () => {
    await expect(store.put(settings("", 1n, []))).rejects.toThrow(/customer_id is required/);
    await expect(store.put(settings("alice", 0n, []))).rejects.toThrow(/workspace_id must be a positive integer/);
    await expect(store.put(settings("alice", 1n, ["https://x.example/"]))).rejects.toThrow(/allowed_domains\[0\]: must be a domain name/);
    await expect(store.put(settings("alice", 1n, Array.from({ length: 201 }, (_, i) => `d${i}.example`)))).rejects.toThrow(/at most 200 entries/);
    await expect(store.get("alice", -1n)).rejects.toThrow(/workspace_id must be a positive integer/);
  });
});
