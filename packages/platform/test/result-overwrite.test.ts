// Hostile: a scanner's NATS user rewriting a stored result after the honest worker wrote it. "Create if absent" is only
// the honest writer's header (Nats-Expected-Last-Subject-Sequence: 0); the tag scanner's user may publish on
// `$KV.cva_results.tag.>` to store its results, so with the bucket as it was — max one message per key, the oldest
// discarded — a plain publish on a job's key replaced its result, a rollup (KV purge) did the same, and a flood of
// other keys evicted the first result so that the key could be written afresh. The server now refuses all three:
// discard-new per subject (one message per key, ever), discard-new for the whole bucket (a full bucket refuses, it
// does not evict; no byte bound where the server's would evict, before 2.10.5) and no rollups; and only the edge may
// change those settings. Run against a real nats-server with the deployed users and permissions, and with the
// project's own requester and worker.
import { randomUUID } from "node:crypto";
import { create, toBinary } from "@bufbuild/protobuf";
import { DiscardPolicy, jetstream, jetstreamManager, RetentionPolicy, StorageType } from "@nats-io/jetstream";
import { headers } from "@nats-io/transport-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ScanJobResultSchema, ScanJobSchema, ScanKind, TagReportSchema, type ScanJob } from "@cva/contracts";
import {
  connectNats,
  createDispatcher,
  discardNewBytesExact,
  RESULTS_STREAM,
  silentLogger,
  startWorker,
  type DispatchSettings,
  type Dispatcher,
  type NatsConnection,
  type Worker,
} from "@cva/platform";
import { startNatsServer, until, type TestNatsServer } from "@cva/platform/testing/index.ts";

const settings: DispatchSettings = { ackWaitMs: 5000, maxDeliver: 3, queuePerSlot: 4, heartbeatTtlMs: 5000, heartbeatEveryMs: 300 };
// Small enough for a test to fill; the day-long TTL as deployed.
const resultStore = { ttlMs: 24 * 3600_000, maxBytes: 256 * 1024 };
// The bucket as an earlier release made it, with a bound a flood reaches by count (exact on every nats-server).
const MAX_MSGS = 40;
const tagJob = (): ScanJob => create(ScanJobSchema, { jobId: randomUUID(), kind: ScanKind.TAG, input: { case: "tag", value: { creative: { case: "html", value: "<p>ad</p>" } } } });
const forged = (jobId: string) =>
  toBinary(ScanJobResultSchema, create(ScanJobResultSchema, { jobId, workerId: "forger", outcome: { case: "tag", value: create(TagReportSchema, { jobId, creativeRendered: true }) } }));

describe("stored results: the first writer wins, enforced by nats-server", () => {
  let srv: TestNatsServer;
  const conns: NatsConnection[] = [];
  let dispatcher: Dispatcher;
  let worker: Worker;
  let attacker: NatsConnection;

  const connectAs = async (user: "edge" | "tag-scanner" | "zip-analyzer") => {
    const nc = await connectNats(srv.url, `test-${user}`, { auth: srv.authFor(user) });
    conns.push(nc);
    return nc;
  };
  const honestResult = async () => {
    const job = tagJob();
    const result = await dispatcher.submit(job, { timeoutMs: 30_000 });
    expect(result.workerId).toBe(worker.workerId);
    return job.jobId;
  };
  const readBack = async (jobId: string) => (await dispatcher.resultOf(jobId, ScanKind.TAG))?.workerId;

  beforeAll(async () => {
    srv = await startNatsServer({ users: true });
    const edge = await connectAs("edge");
    // The bucket as the previous release made it (oldest discarded, rollups allowed): the requester's start brings it
    // to the enforcing configuration, as an upgrade of a running deployment must.
    await (await jetstreamManager(edge)).streams.add({
      name: RESULTS_STREAM,
      subjects: ["$KV.cva_results.>"],
      retention: RetentionPolicy.Limits,
      storage: StorageType.File,
      discard: DiscardPolicy.Old,
      max_msgs_per_subject: 1,
      max_msgs: MAX_MSGS,
      max_bytes: resultStore.maxBytes,
      allow_rollup_hdrs: true,
      deny_delete: true,
      allow_direct: true,
    });
    dispatcher = await createDispatcher(edge, { logger: silentLogger(), settings, resultStore });
    worker = await startWorker(await connectAs("tag-scanner"), {
      kind: ScanKind.TAG,
      location: "usa",
      slots: 2,
      settings,
      logger: silentLogger(),
      handle: async (job) => ({ case: "tag", value: create(TagReportSchema, { jobId: job.jobId }) }),
    });
    await until("the tag worker's heartbeat", async () => dispatcher.liveWorkers(ScanKind.TAG).length, (n) => n === 1);
    // The compromised scanner: the same NATS user as the honest one.
    attacker = await connectAs("tag-scanner");
  }, 60_000);

  afterAll(async () => {
    await worker?.stop();
    await dispatcher?.close();
    for (const nc of conns) await nc.close().catch(() => {});
    await srv?.stop();
  });

  it("keeps the bucket in the enforcing configuration, which only the edge may change", async () => {
    const edgeJsm = await jetstreamManager(conns[0]!);
    const cfg = (await edgeJsm.streams.info(RESULTS_STREAM)).config;
    expect(cfg).toMatchObject({ discard: DiscardPolicy.New, discard_new_per_subject: true, max_msgs_per_subject: 1, allow_rollup_hdrs: false, deny_delete: true, deny_purge: true });
    expect(cfg.max_bytes).toBe(discardNewBytesExact(conns[0]!.info?.version) ? resultStore.maxBytes : -1);
    // The zip analyzer (it parses hostile zips) creates the bucket when it starts first, but cannot loosen it.
    const zipJsm = await jetstreamManager(await connectAs("zip-analyzer"));
    await expect(zipJsm.streams.update(RESULTS_STREAM, { ...cfg, discard: DiscardPolicy.Old, discard_new_per_subject: false, allow_rollup_hdrs: true })).rejects.toThrow(/permissions violation/i);
    await createDispatcher(conns.at(-1)!, { logger: silentLogger(), settings, resultStore }).then((d) => d.close());
    expect((await edgeJsm.streams.info(RESULTS_STREAM)).config).toMatchObject({ discard: DiscardPolicy.New, discard_new_per_subject: true });
  });

  it("pins why the byte bound is left off before nats-server 2.10.5: there a full discard-new stream evicts", async (ctx) => {
    if (discardNewBytesExact(conns[0]!.info?.version)) ctx.skip();
    // On a throwaway server: the bucket's settings with a byte bound, filled by ever smaller entries.
    const twin = { name: RESULTS_STREAM, subjects: ["$KV.cva_results.>"], retention: RetentionPolicy.Limits, storage: StorageType.File, discard: DiscardPolicy.New, discard_new_per_subject: true, max_msgs_per_subject: 1, max_bytes: 8192, allow_direct: true };
    const probe = await startNatsServer();
    const pnc = await connectNats(probe.url, "probe");
    try {
      const pjsm = await jetstreamManager(pnc);
      await pjsm.streams.add(twin);
      const pjs = jetstream(pnc);
      await pjs.publish("$KV.cva_results.tag.edge.first", new Uint8Array(10));
      for (const size of [4000, 1000, 100, 1]) for (let i = 0; i < 5; i++) await pjs.publish(`$KV.cva_results.tag.edge.f${size}_${i}`, new Uint8Array(size)).catch(() => {});
      // The first entry is gone, and its key takes a new message.
      expect(await pjsm.direct.getMessage(RESULTS_STREAM, { last_by_subj: "$KV.cva_results.tag.edge.first" })).toBeNull();
      await expect(pjs.publish("$KV.cva_results.tag.edge.first", new Uint8Array(1))).resolves.toBeTruthy();
    } finally {
      await pnc.close();
      await probe.stop();
    }
  });

  it("refuses a plain publish, one claiming the current sequence, and a rollup on a stored result's key", async () => {
    const jobId = await honestResult();
    const js = jetstream(attacker);
    const key = `$KV.cva_results.tag.edge.${jobId}`;
    await expect(js.publish(key, forged(jobId), { timeout: 5000 })).rejects.toThrow(/maximum messages per subject exceeded/);
    await expect(js.publish(key, forged(jobId), { expect: { lastSubjectSequence: 1 }, timeout: 5000 })).rejects.toThrow(/maximum messages per subject exceeded/);
    const rollup = headers();
    rollup.set("Nats-Rollup", "sub");
    rollup.set("KV-Operation", "PURGE");
    await expect(js.publish(key, forged(jobId), { headers: rollup, timeout: 5000 })).rejects.toThrow(/rollup not permitted/);
    expect(await readBack(jobId)).toBe(worker.workerId);
  });

  it("does not let a flood of other keys evict a stored result so that its key can be written afresh", async () => {
    const jobId = await honestResult();
    const js = jetstream(attacker);
    // Filled up: large entries until one is refused or the bucket's count bound is reached.
    let refused: unknown;
    for (let i = 0; i < 2 * MAX_MSGS && !refused; i++) {
      refused = await js.publish(`$KV.cva_results.tag.edge.${randomUUID()}`, new Uint8Array(32 * 1024), { timeout: 5000 }).then(() => undefined, (e: unknown) => e);
    }
    // Full: new entries are refused, none is dropped to make room.
    expect(String(refused)).toMatch(/maximum (bytes|messages) exceeded/);
    await expect(jetstream(attacker).publish(`$KV.cva_results.tag.edge.${jobId}`, forged(jobId), { timeout: 5000 })).rejects.toThrow();
    expect(await readBack(jobId)).toBe(worker.workerId);
    // Scans go on while the bucket is full: the result reaches its requester through the notification, the job is
    // acknowledged (not scanned again to be refused again), and nothing is stored for it.
    const late = tagJob();
    expect((await dispatcher.submit(late, { timeoutMs: 30_000 })).workerId).toBe(worker.workerId);
    expect(await dispatcher.resultOf(late.jobId, ScanKind.TAG)).toBeUndefined();
  });
});

describe("which nats-server keeps a discard-new byte bound without evicting", () => {
  it("is 2.10.5 and later (nats-server: Fix DiscardNew exceed bytes calculation)", () => {
    for (const v of ["2.9.10", "2.9.25", "2.10.4", "v2.10.4", "", "dev"]) expect(discardNewBytesExact(v), v).toBe(false);
    for (const v of ["2.10.5", "2.10.29", "2.11.0", "2.14.5", "3.0.0", "v2.12.1-RC.2"]) expect(discardNewBytesExact(v), v).toBe(true);
    expect(discardNewBytesExact(undefined)).toBe(false);
  });
});
