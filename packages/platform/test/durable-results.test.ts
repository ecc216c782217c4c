import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { create } from "@bufbuild/protobuf";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { MediaProbeSchema, ScanJobSchema, ScanKind, type ScanJob } from "@cva/contracts";
import {
  connectNats,
  createDispatcher,
  jetStreamReplicas,
  RESULTS_STREAM,
  silentLogger,
  startWorker,
  STREAM,
  type DispatchSettings,
  type NatsConnection,
  type Worker,
} from "@cva/platform";
import { startNatsCluster, type TestNatsCluster } from "@cva/platform/testing/index.ts";

// Results are stored before the job is acked and outlive what happens to the requester meanwhile: a NATS node dying
// under it, or the requesting process itself going away. On a real three-node cluster, as deployed (users and
// permissions), with every stream and bucket at three replicas.
const settings: DispatchSettings = { ackWaitMs: 5000, maxDeliver: 3, queuePerSlot: 4, heartbeatTtlMs: 5000, heartbeatEveryMs: 300 };
const mediaJob = (): ScanJob => create(ScanJobSchema, { jobId: randomUUID(), kind: ScanKind.MEDIA, input: { case: "media", value: { url: "x" } } });

describe("durable results on a three-node NATS cluster", () => {
  let cluster: TestNatsCluster;
  const conns: NatsConnection[] = [];
  let worker: Worker;
  // The worker holds each job until the test lets it go.
  const held = new Map<string, () => void>();
  const taken = new Map<string, Promise<void>>();
  const tookJob = new Map<string, () => void>();
  const expectJob = (jobId: string) => taken.set(jobId, new Promise<void>((r) => tookJob.set(jobId, r)));

  const connectAs = async (user: "edge" | "media-prober" | "zip-analyzer", url?: string) => {
    const nc = await connectNats(url ?? cluster.url, `test-${user}`, { auth: cluster.authFor(user) });
    conns.push(nc);
    return nc;
  };

  beforeAll(async () => {
    cluster = await startNatsCluster({ users: true });
    const edge = await connectAs("edge");
    // Creates the stream and the results bucket, as the edge does at start-up.
    await createDispatcher(edge, { logger: silentLogger(), settings });
    // The worker is on the second node only: killing the first leaves it alone.
    worker = await startWorker(await connectAs("media-prober", cluster.urls[1]), {
      kind: ScanKind.MEDIA,
      location: "usa",
      slots: 4,
      settings,
      logger: silentLogger(),
      async handle(job) {
        await new Promise<void>((release) => {
          held.set(job.jobId, release);
          tookJob.get(job.jobId)?.();
        });
        return { case: "media", value: create(MediaProbeSchema, { url: `done:${job.jobId}` }) };
      },
    });
  }, 90_000);

  afterAll(async () => {
    // Teardown of a cluster whose nodes were killed and restarted: each step bounded, so a slow drain (CI saw the
    // hook pass 60 s once, every test having passed) cannot fail the file; the cluster's processes are stopped last
    // whatever the earlier steps did.
    const bounded = (p: Promise<unknown> | undefined) => Promise.race([Promise.resolve(p).catch(() => {}), new Promise((r) => setTimeout(r, 15_000))]);
    for (const release of held.values()) release();
    await bounded(worker?.stop());
    await bounded(Promise.all(conns.map((nc) => nc.close().catch(() => {}))));
    await cluster?.stop();
  }, 90_000);

  it("creates the job stream and the results bucket with three replicas", async () => {
    const nc = await connectAs("edge");
    expect(jetStreamReplicas(nc)).toBe(3);
    const jsm = await jetstreamManager(nc);
    for (const name of [STREAM, RESULTS_STREAM]) {
      const info = await jsm.streams.info(name);
      expect(info.config.num_replicas, name).toBe(3);
      expect(info.cluster?.replicas?.length, name).toBe(2);
    }
    expect((await jsm.streams.info(RESULTS_STREAM)).config.max_age).toBeGreaterThanOrEqual(24 * 3600 * 1e9);
    // First writer wins on the replicated bucket too (result-overwrite.test.ts has the attacks).
    expect((await jsm.streams.info(RESULTS_STREAM)).config).toMatchObject({ discard: "new", discard_new_per_subject: true, max_msgs_per_subject: 1, allow_rollup_hdrs: false });
  });

  it("finds a result stored after the requesting process went away, from a new process of the same user", async () => {
    const first = await connectAs("edge");
    const d1 = await createDispatcher(first, { logger: silentLogger(), settings });
    await expect.poll(() => d1.liveWorkers(ScanKind.MEDIA).length, { timeout: 10_000 }).toBe(1);
    const job = mediaJob();
    expectJob(job.jobId);
    const pending = d1.submit(job, { timeoutMs: 60_000 });
    pending.catch(() => {});
    await taken.get(job.jobId);
    // The requester is gone (an edge restart), then the scan finishes.
    await d1.close();
    await first.close();
    held.get(job.jobId)!();

    const second = await connectAs("edge");
    const d2 = await createDispatcher(second, { logger: silentLogger(), settings });
    await expect.poll(async () => (await d2.resultOf(job.jobId))?.outcome.value, { timeout: 20_000 }).toMatchObject({ url: `done:${job.jobId}` });
    const byKind = await d2.resultOf(job.jobId, ScanKind.MEDIA);
    expect(byKind?.jobId).toBe(job.jobId);
    expect(await d2.resultOf(randomUUID())).toBeUndefined();
    await d2.close();
  });

  it("delivers a result to a requester whose NATS node was killed while the job ran", async () => {
    // The requester knows only the first node; it learns the others from the cluster and reconnects there.
    const nc = await connectAs("edge", cluster.urls[0]);
    const d = await createDispatcher(nc, { logger: silentLogger(), settings });
    await expect.poll(() => d.liveWorkers(ScanKind.MEDIA).length, { timeout: 10_000 }).toBe(1);
    const job = mediaJob();
    expectJob(job.jobId);
    const pending = d.submit(job, { timeoutMs: 60_000 });
    await taken.get(job.jobId);
    const disconnected = (async () => {
      for await (const s of nc.status()) if (s.type === "disconnect") return;
    })();
    cluster.kill(0);
    await disconnected;
    // Finishes while its requester is cut off: the notification goes nowhere, the stored entry stays.
    held.get(job.jobId)!();
    const result = await pending;
    expect(result.outcome.value).toMatchObject({ url: `done:${job.jobId}` });
    await d.close();
    await cluster.restart(0);
  }, 90_000);

  it("lets a worker write only its own kind's results and read none, and a requester read only its own", async () => {
    const workerNc = await connectAs("media-prober");
    const js = jetstream(workerNc);
    await expect(js.publish(`$KV.cva_results.tag.edge.${randomUUID()}`, new Uint8Array([1]), { timeout: 3000 })).rejects.toThrow();
    const workerJsm = await jetstreamManager(workerNc);
    await expect(workerJsm.direct.getMessage(RESULTS_STREAM, { last_by_subj: `$KV.cva_results.media.edge.${randomUUID()}` })).rejects.toThrow();

    // zip-analyzer submits tag jobs: it reads its own tag results, never the edge's.
    const zipJsm = await jetstreamManager(await connectAs("zip-analyzer"));
    expect(await zipJsm.direct.getMessage(RESULTS_STREAM, { last_by_subj: `$KV.cva_results.tag.zip-analyzer.${randomUUID()}` })).toBeNull();
    await expect(zipJsm.direct.getMessage(RESULTS_STREAM, { last_by_subj: `$KV.cva_results.tag.edge.${randomUUID()}` })).rejects.toThrow();
    await expect.poll(() => cluster.log.some((l) => /Publish Violation.*cva_results\.tag\.edge/.test(l))).toBe(true);
  });
});
