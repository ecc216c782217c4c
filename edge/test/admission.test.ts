// The edge's own in-flight count (scan/admission.ts), against the in-memory fakes: a request that finds its customer
// at the cap at this edge is answered without a scan through either door — also when auth, which has the exact count
// across edges, would have room (the reservation it grants is given back) — and the count follows every request
// until it is answered, a client that leaves included. The hostile proof with the real auth is
// test/e2e/in-flight-caps.test.ts.
import net from "node:net";
import type { AddressInfo } from "node:net";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient, createRouterTransport } from "@connectrpc/connect";
import { scan, type ScanJob, type ScanJobResult } from "@cva/contracts";
import { until } from "@cva/platform/testing/index.ts";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { buildEdge } from "../src/app.ts";
import { registerScanService } from "../src/grpc/service.ts";
import { b64, FakeAuth, FakeDispatcher, FakeReportStore, TAG, testConfig } from "./fakes.ts";

// A dispatcher whose jobs wait for the test.
class HeldDispatcher extends FakeDispatcher {
  private gates: Array<() => void> = [];
  override async submit(job: ScanJob): Promise<ScanJobResult> {
    await new Promise<void>((r) => this.gates.push(r));
    return super.submit(job);
  }
  get waiting(): number {
    return this.gates.length;
  }
  releaseAll(): void {
    for (const g of this.gates.splice(0)) g();
  }
}

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

async function setup() {
  const authFake = new FakeAuth();
  const dispatcher = new HeldDispatcher();
  const { app, ctx } = await buildEdge({
    auth: authFake.client(), reports: new FakeReportStore().client(), dispatcher,
    config: testConfig({ maxInFlightPerCustomer: 1, retryAfterSeconds: 2 }), logger: pino({ level: "silent" }), isKnownSpecId: (id) => id === 0,
  });
  close = async () => {
    dispatcher.releaseAll();
    await app.close();
  };
  const post = (payload: unknown, key = "key-a", url = "/v3/scanTag") => app.inject({ method: "POST", url, headers: { "x-apikey": key }, payload: payload as object });
  return { app, ctx, authFake, dispatcher, post };
}

const REFUSAL = {
  error_type: "processing_error",
  message: "too many scans rendering on the tag scanner (ad tags and zips) in flight for this customer: at most 1 at once; retry when one has finished",
};

describe("admission at the edge", () => {
  it("answers a customer at its cap without scanning: payload errors first, a reservation auth grants is given back", async () => {
    const { ctx, authFake, dispatcher, post } = await setup();
    const first = post({ data: TAG });
    await until("the first scan at the scanner", async () => dispatcher.waiting, (n) => n === 1);
    expect(ctx.useCases.admission.inProgress("cust-a")).toEqual({ tag: 1 });

    const bad = await post({ data: "not base64!" });
    expect(JSON.parse(bad.body)).toMatchObject({ error_type: "payload_error", message: expect.stringMatching(/^data: not valid base64/) });
    // The fake auth keeps no in-flight count: it grants the reservation, and the edge gives it back at once.
    const refused = await post({ data: TAG });
    expect(refused.statusCode).toBe(400);
    expect(JSON.parse(refused.body)).toEqual(REFUSAL);
    expect(refused.headers["retry-after"]).toBe("2");
    expect(authFake.refunds).toHaveLength(1);
    expect(dispatcher.jobs.length + dispatcher.waiting).toBe(1);
    // A zip renders on the tag scanner: also at the cap there.
    const zip = await post({ data: b64(Buffer.from([0x50, 0x4b, 0x05, 0x06, ...new Array(18).fill(0)])) }, "key-a", "/v3/scanZip");
    expect(JSON.parse(zip.body)).toEqual(REFUSAL);
    // Another customer has a count of its own.
    const other = post({ data: TAG }, "key-b");
    await until("the other customer's scan at the scanner", async () => dispatcher.waiting, (n) => n === 2);

    dispatcher.releaseAll();
    expect((await first).statusCode).toBe(200);
    expect((await other).statusCode).toBe(200);
    expect(ctx.useCases.admission.inProgress("cust-a")).toEqual({});
    expect(authFake.commits).toHaveLength(2);
    // Under the cap again: scanned.
    const again = post({ data: TAG });
    await until("the next scan at the scanner", async () => dispatcher.waiting, (n) => n === 1);
    dispatcher.releaseAll();
    expect((await again).statusCode).toBe(200);
  });

  it("counts gRPC scans too, and answers gRPC requests at the cap the same way", async () => {
    const { ctx, authFake, dispatcher, post } = await setup();
    const client = createClient(scan.ScanService, createRouterTransport((r) => registerScanService(r, { useCases: ctx.useCases, limits: ctx.deps.config.limits, isKnownSpecId: ctx.isKnownSpecId, logger: ctx.deps.logger })));
    const headers = { "x-apikey": "key-a" };
    const first = client.scanTagV3(create(scan.ScanTagV3RequestSchema, { data: Buffer.from("<div>ad</div>") }), { headers });
    await until("the gRPC scan at the scanner", async () => dispatcher.waiting, (n) => n === 1);
    // A JSON request finds the customer at its cap, and so does a second gRPC one.
    expect(JSON.parse((await post({ data: TAG })).body)).toEqual(REFUSAL);
    const second = await client.scanTagV3(create(scan.ScanTagV3RequestSchema, { data: Buffer.from("<div>ad 2</div>") }), { headers }).catch((e: unknown) => e);
    expect(second).toBeInstanceOf(ConnectError);
    expect((second as ConnectError).code).toBe(Code.Unavailable);
    expect((second as ConnectError).rawMessage).toBe(REFUSAL.message);
    expect(authFake.refunds).toHaveLength(2);
    dispatcher.releaseAll();
    await first;
    expect(ctx.useCases.admission.inProgress("cust-a")).toEqual({});
  });

  it("releases the count of a request whose client leaves before sending its body, and of one that leaves mid-scan once it ends", async () => {
    const { app, ctx, dispatcher } = await setup();
    await app.listen({ port: 0, host: "127.0.0.1" });
    const { port } = app.server.address() as AddressInfo;
    const body = JSON.stringify({ data: TAG });
    const send = (text: string) => {
      const s = net.connect(port, "127.0.0.1");
      s.on("error", () => {});
      s.write(`POST /v3/scanTag HTTP/1.1\r\nhost: edge.test\r\ncontent-type: application/json\r\nx-apikey: key-a\r\ncontent-length: ${body.length}\r\n\r\n${text}`);
      return s;
    };
    const partial = send(body.slice(0, 5));
    await until("the request admitted", async () => ctx.useCases.admission.inProgress("cust-a").tag ?? 0, (n) => n === 1);
    partial.destroy();
    await until("its count released", async () => ctx.useCases.admission.inProgress("cust-a").tag ?? 0, (n) => n === 0);

    const serverSide = new Promise<net.Socket>((r) => app.server.once("connection", r));
    const leaving = send(body);
    const theirs = await serverSide;
    await until("the scan at the scanner", async () => dispatcher.waiting, (n) => n === 1);
    const gone = new Promise((r) => theirs.once("close", r));
    leaving.destroy();
    await gone;
    // The edge has seen the client leave; its scan still runs, so the customer's place stays taken until it ends.
    await new Promise((r) => setImmediate(r));
    expect(ctx.useCases.admission.inProgress("cust-a")).toEqual({ tag: 1 });
    dispatcher.releaseAll();
    await until("its count released after the scan", async () => ctx.useCases.admission.inProgress("cust-a").tag ?? 0, (n) => n === 0);
  });
});
