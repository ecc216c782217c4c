import { create } from "@bufbuild/protobuf";
import { reportstore } from "@cva/contracts";
import { startNatsServer } from "@cva/platform/testing/index.ts";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openArtifacts } from "../src/artifacts.ts";
import { DAY_MS } from "../src/retention.ts";
import { createReportStore, type ReportStore } from "../src/store.ts";

let nats: Awaited<ReturnType<typeof startNatsServer>>;
let nc: NatsConnection;
let store: ReportStore;

beforeAll(async () => {
  nats = await startNatsServer();
  nc = await connect({ servers: nats.url });
  store = await createReportStore(nc, { retentionMs: 30 * DAY_MS });
});

afterAll(async () => {
  await nc?.close();
  await nats?.stop();
});

function report(o: Partial<Omit<reportstore.StoredReport, "$typeName">> & { jobId: string; customerId: string }) {
  return create(reportstore.StoredReportSchema, {
    reportKind: "tag_v3",
    json: new TextEncoder().encode(JSON.stringify({ job: o.jobId })),
    createdUnixMs: 1_700_000_000_000n,
    ...o,
  });
}

describe("reports", () => {
  it("returns a report only to its owner", async () => {
    const r = report({ jobId: "job-1", customerId: "alice", pageToken: "tok_job1_abcdefghijklmnop", name: "banner" });
    await store.put(r);
    const got = await store.get("job-1", "alice");
    expect(Buffer.from(got!.json).equals(Buffer.from(r.json))).toBe(true);
    expect(got?.name).toBe("banner");
    expect(await store.get("job-1", "mallory")).toBeUndefined();
    expect(await store.get("job-1", "")).toBeUndefined();
    expect(await store.get("no-such-job", "alice")).toBeUndefined();
  });

  it("is write-once: same report again is fine, a different one is refused", async () => {
    const r = report({ jobId: "job-once", customerId: "alice" });
    await store.put(r);
    await store.put(r);
    await expect(store.put(report({ jobId: "job-once", customerId: "mallory" }))).rejects.toMatchObject({ kind: "already_exists" });
    expect((await store.get("job-once", "alice"))?.customerId).toBe("alice");
  });

  it("stamps created_unix_ms when missing and validates ids", async () => {
    await store.put(report({ jobId: "job-now", customerId: "alice", createdUnixMs: 0n }));
    expect((await store.get("job-now", "alice"))!.createdUnixMs).toBeGreaterThan(0n);
    await expect(store.put(report({ jobId: "", customerId: "alice" }))).rejects.toMatchObject({ kind: "invalid_argument" });
    await expect(store.put(report({ jobId: "x", customerId: "" }))).rejects.toMatchObject({ kind: "invalid_argument" });
  });

  it("finds a report by its page token", async () => {
    const r = report({ jobId: "job-page", customerId: "bob", pageToken: "Zk9vYmFyX3BhZ2VfdG9rZW4" });
    await store.put(r);
    expect((await store.getByPageToken("Zk9vYmFyX3BhZ2VfdG9rZW4"))?.jobId).toBe("job-page");
    expect(await store.getByPageToken("unknown-token")).toBeUndefined();
    expect(await store.getByPageToken("")).toBeUndefined();
    expect(await store.getByPageToken("with.dots.*>")).toBeUndefined();
  });

  it("lists a customer's workspace newest first, paginated", async () => {
    const base = 1_710_000_000_000;
    // Stored out of order, with ids full of subject syntax, plus noise from another workspace and another customer.
    const order = [3, 0, 4, 1, 2];
    for (const i of order) {
      await store.put(report({ jobId: `ws.job *${i}`, customerId: "carol.corp", workspaceId: 7n, createdUnixMs: BigInt(base + i * 1000), name: `n${i}` }));
    }
    await store.put(report({ jobId: "other-ws", customerId: "carol.corp", workspaceId: 8n, createdUnixMs: BigInt(base) }));
    await store.put(report({ jobId: "other-cust", customerId: "dave", workspaceId: 7n, createdUnixMs: BigInt(base) }));

    const seen: string[] = [];
    let tok = "";
    let pages = 0;
    do {
      const page = await store.listWorkspace("carol.corp", 7n, 2, tok);
      expect(page.reports.length).toBeLessThanOrEqual(2);
      seen.push(...page.reports.map((r) => r.jobId));
      tok = page.nextPageToken;
      pages++;
    } while (tok && pages < 10);
    expect(seen).toEqual(["ws.job *4", "ws.job *3", "ws.job *2", "ws.job *1", "ws.job *0"]);
    expect(pages).toBe(3);

    const all = await store.listWorkspace("carol.corp", 7n, 0, "");
    expect(all.reports.map((r) => r.name)).toEqual(["n4", "n3", "n2", "n1", "n0"]);
    expect(all.reports[0]).toMatchObject({ reportKind: "tag_v3", createdUnixMs: BigInt(base + 4000) });
    expect(all.nextPageToken).toBe("");
    expect((await store.listWorkspace("dave", 7n, 10, "")).reports.map((r) => r.jobId)).toEqual(["other-cust"]);
    expect((await store.listWorkspace("nobody", 7n, 10, "")).reports).toEqual([]);
    await expect(store.listWorkspace("carol.corp", 7n, 2, "garbage!")).rejects.toMatchObject({ kind: "invalid_argument" });
  });
});

describe("retention and artifacts", () => {
  it("applies the retention to the reports and artifacts buckets, also when they already exist", async () => {
    const jsm = await jetstreamManager(nc);
    expect((await jsm.streams.info("KV_cva_reports")).config.max_age).toBe(30 * DAY_MS * 1_000_000);
    await createReportStore(nc, { retentionMs: 2 * DAY_MS });
    expect((await jsm.streams.info("KV_cva_reports")).config.max_age).toBe(2 * DAY_MS * 1_000_000);
    await openArtifacts(nc, 3 * DAY_MS);
    expect((await jsm.streams.info("OBJ_cva_artifacts")).config.max_age).toBe(3 * DAY_MS * 1_000_000);
    await openArtifacts(nc, 5 * DAY_MS);
    expect((await jsm.streams.info("OBJ_cva_artifacts")).config.max_age).toBe(5 * DAY_MS * 1_000_000);
    // Reports stored before the change are still there.
    expect(await store.get("job-1", "alice")).toBeDefined();
  });

  it("round-trips artifacts", async () => {
    const artifacts = await openArtifacts(nc, DAY_MS);
    const data = new Uint8Array(300_000).map((_, i) => i % 251);
    const id = await artifacts.put(data, "image/png");
    const got = await artifacts.get(id);
    expect(got?.mimeType).toBe("image/png");
    expect(Buffer.from(got!.data).equals(Buffer.from(data))).toBe(true);
    expect(await artifacts.get("A".repeat(22))).toBeUndefined();
  });
});
