// Hostile tests of the internal doors (docs/security.md), against the whole product as `npm start` runs it: every
// internal listener is on loopback, every internal gRPC service refuses a caller without the credential (and the
// key/quota RPCs a caller without the admin one), NATS refuses anonymous and wrong users and holds the tag scanner's
// user to its own work, and /metrics is not on the public port. After each attack a real scan still works.
// Registered inside scans.test.ts, after its check that the scans needed no NATS subject beyond their permissions (the
// attacks here make nats-server log violations on purpose): the same default stack, one start fewer (~40 s of CPU).
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient, type Client, type Interceptor, type Transport } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport, createGrpcWebTransport } from "@connectrpc/connect-node";
import {
  auth, health, mediaprober, reportstore, ScanJobSchema, ScanKind, tagscanner, vastanalyzer, zipanalyzer,
} from "@cva/contracts";
import { ARTIFACT_BUCKET, CUSTOMERS_BUCKET, KEYS_BUCKET, QUOTA_BUCKET, REPORTS_BUCKET, connectNats, natsPermissions, withCredential, type NatsConnection, type NatsUser } from "@cva/platform";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isLoopback, listeners } from "../harness/listeners.ts";
import { b64, postJson, type TestStack } from "../harness/stack.ts";

const TAG = '<div style="width:300px;height:250px;background:#0a0">doors</div>';

/** Registers the internal-door cases; call inside the describe that owns the stack (the default `startStack`). */
export function internalDoorsCases(shared: () => TestStack): void {
  describe("internal doors", () => {
    let stack: TestStack;
    let key: string;
    let report: { job_id: string; screenshot: { highres: { url: string } } };

    const scanWorks = async () => {
      const r = await postJson(`${stack.baseUrl}/v3/scanTag`, { data: b64(TAG), workspace_id: 42 }, key);
      expect(r.status, r.text).toBe(200);
      return r.json;
    };

    beforeAll(async () => {
      stack = shared();
      key = await stack.createKey("doors-owner", 1000);
      // A stored report with images: what an intruder would be after.
      report = await scanWorks();
    }, 180_000);

    it("listens beyond loopback only with the edge's two public ports", () => {
      const pids = stack.pids();
      const open = listeners([...pids.values()]);
      const exposed = open.filter((l) => !isLoopback(l.address)).map((l) => `${l.address}:${l.port}`);
      expect(exposed.sort()).toEqual([`0.0.0.0:${stack.ports.edge}`, `0.0.0.0:${stack.ports.edgeGrpc}`].sort());
      // Each internal service really is listening (on loopback): its gRPC port and its metrics port.
      for (const [svc, port] of [["auth", stack.ports.auth], ["report-store", stack.ports.reportStore], ["tag-scanner", stack.ports.tagScanner], ["zip-analyzer", stack.ports.zipAnalyzer], ["vast-analyzer", stack.ports.vastAnalyzer], ["media-prober", stack.ports.mediaProber]] as const) {
        const own = open.filter((l) => l.pid === pids.get(svc));
        expect(own.find((l) => l.port === port)?.address, `${svc} gRPC`).toBe("127.0.0.1");
        expect(own.filter((l) => l.port !== port).length, `${svc} metrics`).toBeGreaterThanOrEqual(1);
        expect(own.every((l) => isLoopback(l.address)), `${svc}: ${JSON.stringify(own)}`).toBe(true);
      }
      expect(open.find((l) => l.pid === pids.get("nats"))?.address).toBe("127.0.0.1");
    });

    // Answer for every internal RPC without the credential, or with a wrong one, over gRPC, Connect and gRPC-web:
    // UNAUTHENTICATED "missing or invalid service credential", before the request is looked at.
    it("every internal gRPC service refuses a caller without the service credential", async () => {
      const url = (port: number) => `http://127.0.0.1:${port}`;
      const transports = (port: number, interceptors: Interceptor[]): Transport[] => [
        createGrpcTransport({ baseUrl: url(port), interceptors }),
        createConnectTransport({ baseUrl: url(port), httpVersion: "2", interceptors }),
        createGrpcWebTransport({ baseUrl: url(port), httpVersion: "2", interceptors }),
      ];
      // A well-formed job for each scanner: only the missing credential stops it.
      const job = (kind: ScanKind, input: MessageInitShape<typeof ScanJobSchema>["input"]) => create(ScanJobSchema, { jobId: "intruder", kind, apiVersion: "v3", input });
      const calls: Array<[string, number, (t: Transport) => Promise<unknown>]> = [
        ["AuthService/Authenticate", stack.ports.auth, (t) => createClient(auth.AuthService, t).authenticate({ apiKey: key })],
        ["AuthService/ReserveQuota", stack.ports.auth, (t) => createClient(auth.AuthService, t).reserveQuota({ customerId: "doors-owner", jobId: "x" })],
        ["ReportStoreService/GetReport", stack.ports.reportStore, (t) => createClient(reportstore.ReportStoreService, t).getReport({ jobId: report.job_id, customerId: "doors-owner" })],
        ["ReportStoreService/ListWorkspaceReports", stack.ports.reportStore, (t) => createClient(reportstore.ReportStoreService, t).listWorkspaceReports({ customerId: "doors-owner", workspaceId: 42n })],
        ["ReportStoreService/GetArtifact", stack.ports.reportStore, (t) => createClient(reportstore.ReportStoreService, t).getArtifact({ id: report.screenshot.highres.url.split("/").pop()! })],
        ["ReportStoreService/PutReport", stack.ports.reportStore, (t) => createClient(reportstore.ReportStoreService, t).putReport({})],
        ["TagScannerService/ScanTag", stack.ports.tagScanner, (t) => createClient(tagscanner.TagScannerService, t).scanTag({ job: job(ScanKind.TAG, { case: "tag", value: { creative: { case: "html", value: TAG } } }) })],
        ["ZipAnalyzerService/AnalyzeZip", stack.ports.zipAnalyzer, (t) => createClient(zipanalyzer.ZipAnalyzerService, t).analyzeZip({ job: job(ScanKind.ZIP, { case: "zip", value: { data: new Uint8Array([0x50, 0x4b]) } }) })],
        ["VastAnalyzerService/AnalyzeVast", stack.ports.vastAnalyzer, (t) => createClient(vastanalyzer.VastAnalyzerService, t).analyzeVast({ job: job(ScanKind.VAST, { case: "vast", value: { url: "https://ads.example.com/v.xml" } }) })],
        ["MediaProberService/ProbeMedia", stack.ports.mediaProber, (t) => createClient(mediaprober.MediaProberService, t).probeMedia({ job: job(ScanKind.MEDIA, { case: "media", value: { url: "https://ads.example.com/a.mp4" } }) })],
      ];
      for (const [name, port, call] of calls) {
        for (const [who, interceptors] of [["no credential", []], ["a wrong credential", [withCredential("guessed-secret-of-enough-length")]], ["the admin credential", [withCredential(stack.secrets.admin)]]] as const) {
          for (const t of transports(port, [...interceptors])) {
            const err = await call(t).then(() => undefined, (e: unknown) => ConnectError.from(e));
            expect(err?.code, `${name} with ${who}`).toBe(Code.Unauthenticated);
            expect(err?.rawMessage).toBe("missing or invalid service credential");
          }
        }
      }
      // Probes stay open (they learn SERVING / NOT_SERVING only) — on loopback.
      for (const port of [stack.ports.auth, stack.ports.reportStore, stack.ports.tagScanner, stack.ports.zipAnalyzer, stack.ports.vastAnalyzer, stack.ports.mediaProber]) {
        const res = await createClient(health.Health, createGrpcTransport({ baseUrl: url(port) })).check({ service: "" });
        expect(res.status).toBe(health.HealthCheckResponse_ServingStatus.SERVING);
      }
      // With the credential the same door opens (it is the credential that stops the calls above).
      const withSecret = createClient(reportstore.ReportStoreService, createGrpcTransport({ baseUrl: url(stack.ports.reportStore), interceptors: [withCredential(stack.secrets.service)] }));
      expect((await withSecret.getReport({ jobId: report.job_id, customerId: "doors-owner" })).report?.jobId).toBe(report.job_id);
      await scanWorks();
    });

    // Answers: CreateKey/SetQuota/... without a credential → UNAUTHENTICATED; with the edge's service credential →
    // PERMISSION_DENIED "this method needs the admin credential"; nothing is created or changed; with the admin
    // credential they work.
    it("auth's key and quota RPCs need the admin credential", async () => {
      const client = (secret?: string): Client<typeof auth.AuthService> =>
        createClient(auth.AuthService, createGrpcTransport({ baseUrl: `http://127.0.0.1:${stack.ports.auth}`, interceptors: secret ? [withCredential(secret)] : [] }));
      const code = (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => ConnectError.from(e).code);
      expect(await code(client().createKey({ customerId: "intruder", monthlyQuota: 1_000_000n }))).toBe(Code.Unauthenticated);
      expect(await code(client().setQuota({ customerId: "doors-owner", monthlyQuota: 1_000_000n }))).toBe(Code.Unauthenticated);
      expect(await code(client(stack.secrets.service).createKey({ customerId: "intruder", monthlyQuota: 1_000_000n }))).toBe(Code.PermissionDenied);
      expect(await code(client(stack.secrets.service).setQuota({ customerId: "doors-owner", monthlyQuota: 1_000_000n }))).toBe(Code.PermissionDenied);
      expect(await code(client(stack.secrets.service).listKeys({}))).toBe(Code.PermissionDenied);

      const admin = client(stack.secrets.admin);
      expect(await code(admin.getCustomer({ customerId: "intruder" }))).toBe(Code.NotFound);
      expect((await admin.getCustomer({ customerId: "doors-owner" })).customer?.monthlyQuota).toBe(1000n);
      const made = await admin.createKey({ customerId: "doors-admin", monthlyQuota: 5n });
      expect((await postJson(`${stack.baseUrl}/v3/scanTag`, { data: b64(TAG) }, made.apiKey)).status).toBe(200);
    });

    // Answers: anonymous or wrong-password connections → "Authorization Violation" at connect; every subject outside a
    // user's list → "Permissions Violation" (the request fails, the subscription closes), logged by nats-server.
    describe("NATS", () => {
      const conns: NatsConnection[] = [];
      const as = async (user: NatsUser) => {
        const nc = await connectNats(stack.natsUrl, `intruder-${user}`, { auth: { user, password: stack.secrets.nats[user] } });
        conns.push(nc);
        return nc;
      };
      afterAll(async () => Promise.all(conns.map((c) => c.close())));
      const denied = async (p: Promise<unknown>, what: string) => {
        const err = await p.then(() => undefined, (e: unknown) => e as Error);
        expect(err?.message ?? "allowed", what).toMatch(/Permissions Violation/);
      };
      const subscribeDenied = async (nc: NatsConnection, subject: string) => {
        const sub = nc.subscribe(subject);
        const closed = await Promise.race([sub.closed, new Promise((r) => setTimeout(() => r("still open"), 3000))]);
        expect(closed instanceof Error ? closed.message : closed, `subscribe ${subject}`).toMatch(/Permissions Violation for Subscription/);
      };

      it("refuses anonymous and wrong-password connections", async () => {
        for (const auth of [undefined, { user: "tag-scanner", password: "wrong-password-of-some-length" }, { user: "root", password: stack.secrets.nats.admin }]) {
          const err = await connectNats(stack.natsUrl, "intruder", { auth, timeoutMs: 3000 }).then((nc) => (conns.push(nc), undefined), (e: unknown) => e as Error);
          expect(err?.message ?? "connected", JSON.stringify(auth?.user)).toMatch(/Authorization Violation/);
        }
      });

      it("holds the tag scanner's user to pulling tag jobs, publishing results and writing artifacts", async () => {
        const nc = await as("tag-scanner");
        const api = (subject: string, body: object = {}) => nc.request(subject, JSON.stringify(body), { timeout: 3000 });
        // Another kind's or a forged job, other consumers, the stream itself.
        await denied(api("scan.job.vast.usa"), "publish a VAST job");
        await denied(api("scan.job.tag.usa"), "forge a tag job");
        await denied(api("$JS.API.CONSUMER.MSG.NEXT.SCANS.w_vast_usa", { batch: 1 }), "pull VAST jobs");
        await denied(api("$JS.API.CONSUMER.CREATE.SCANS.spy.scan.job.>", { stream_name: "SCANS", config: { name: "spy", filter_subject: "scan.job.>" } }), "a consumer over every job");
        await denied(api("$JS.API.CONSUMER.DURABLE.CREATE.SCANS.w_tag_usa", {}), "the legacy create that takes any filter");
        await denied(api("$JS.API.STREAM.DELETE.SCANS"), "delete the queue");
        await denied(api("$JS.API.STREAM.PURGE.SCANS"), "purge the queue");
        await denied(api("$JS.API.STREAM.CREATE.SPY", { name: "SPY", subjects: ["scan.result.>"] }), "a stream recording results");
        // Keys, quotas, reports and images of every customer.
        for (const bucket of [KEYS_BUCKET, CUSTOMERS_BUCKET, QUOTA_BUCKET, REPORTS_BUCKET]) {
          await denied(api(`$JS.API.STREAM.INFO.KV_${bucket}`), `${bucket} info`);
          await denied(api(`$JS.API.DIRECT.GET.KV_${bucket}`, { last_by_subj: `$KV.${bucket}.>` }), `${bucket} read`);
          await denied(api(`$KV.${bucket}.x`), `${bucket} write`);
        }
        await denied(api(`$JS.API.STREAM.MSG.GET.OBJ_${ARTIFACT_BUCKET}`, { seq: 1 }), "read a stored image");
        await denied(api(`$JS.API.DIRECT.GET.OBJ_${ARTIFACT_BUCKET}`, { seq: 1 }), "read a stored image directly");
        await denied(api(`$JS.API.CONSUMER.CREATE.OBJ_${ARTIFACT_BUCKET}`, { stream_name: `OBJ_${ARTIFACT_BUCKET}`, config: {} }), "list the images");
        await denied(api(`$JS.API.STREAM.PURGE.OBJ_${ARTIFACT_BUCKET}`), "delete the images");
        // Other processes' traffic.
        for (const subject of ["scan.result.edge.>", "scan.result.>", "scan.job.>", "_INBOX.>", "_INBOX.edge.>", "_INBOX.auth.>", "$KV.>", ">"]) await subscribeDenied(nc, subject);
        await scanWorks();
      });

      it("gives the edge no access to keys, reports or images, and other requesters only their own results", async () => {
        const edge = await as("edge");
        for (const subject of [`$JS.API.STREAM.INFO.KV_${KEYS_BUCKET}`, `$JS.API.DIRECT.GET.KV_${REPORTS_BUCKET}`, `$JS.API.STREAM.MSG.GET.OBJ_${ARTIFACT_BUCKET}`]) {
          await denied(edge.request(subject, "{}", { timeout: 3000 }), `edge: ${subject}`);
        }
        const zip = await as("zip-analyzer");
        await subscribeDenied(zip, "scan.result.edge.>");
        await denied(zip.request("scan.job.vast.usa", "x", { timeout: 3000 }), "zip-analyzer submits a VAST job");
        const media = await as("media-prober");
        await denied(media.request(`$JS.API.STREAM.MSG.GET.OBJ_${ARTIFACT_BUCKET}`, "{}", { timeout: 3000 }), "media-prober reads an image");
        await scanWorks();
      });

      it("the permission table covers the auth service's buckets by name", () => {
        for (const bucket of [KEYS_BUCKET, CUSTOMERS_BUCKET, QUOTA_BUCKET]) {
          expect(natsPermissions("auth").publish).toContain(`$KV.${bucket}.>`);
          expect(natsPermissions("admin").publish).toContain(`$KV.${bucket}.>`);
        }
      });
    });

    // Answer: 404 invalid_endpoint on the public port, with or without a key; the edge's metrics answer on its
    // metrics port, which listens on loopback.
    it("serves /metrics on the metrics port only", async () => {
      for (const headers of [{}, { "x-apikey": key }] as Array<Record<string, string>>) {
        const r = await fetch(`${stack.baseUrl}/metrics`, { headers });
        expect(r.status).toBe(404);
        expect((await r.json()).error_type).toBe("invalid_endpoint");
      }
      const line = stack.logs.find((l) => l.startsWith("[edge") && l.includes('"metrics_port"'));
      const port = Number(/"metrics_port":(\d+)/.exec(line ?? "")?.[1]);
      expect(port, line).toBeGreaterThan(0);
      const metrics = await fetch(`http://127.0.0.1:${port}/metrics`);
      expect(metrics.status).toBe(200);
      expect(await metrics.text()).toContain("cva_edge_scans_total");
      expect(listeners([stack.pids().get("edge")!]).find((l) => l.port === port)?.address).toBe("127.0.0.1");
      await scanWorks();
    });
  });
}
