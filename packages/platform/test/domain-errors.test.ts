// The service host's one error mapping (src/host/domain-errors.ts): a DomainError becomes its Connect code with its
// message, a ConnectError passes as it is, anything else is logged and answered "<name> unavailable" — nothing internal
// reaches the caller. A real host over HTTP/2, as every internal service runs.
import { Writable } from "node:stream";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { reportstore } from "@cva/contracts";
import { alreadyExists, invalidArgument, notFound, startServiceHost, withCredential, type ServiceHost } from "@cva/platform";
import { testCredentials, testSecrets } from "@cva/platform/testing/index.ts";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

describe("domain errors at the service host", () => {
  const lines: Array<Record<string, unknown>> = [];
  const logger = pino(
    { level: "info" },
    new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(JSON.parse(chunk.toString()));
        done();
      },
    }),
  );
  let host: ServiceHost;
  let client: ReturnType<typeof createClient<typeof reportstore.ReportStoreService>>;

  beforeAll(async () => {
    host = await startServiceHost({
      name: "report-store", port: 0, metricsPort: 0, host: "127.0.0.1", credentials: testCredentials, logger,
      serviceNames: [reportstore.ReportStoreService.typeName],
      register: (router) =>
        router.service(reportstore.ReportStoreService, {
          async getReport(req) {
            if (req.jobId === "bad") throw invalidArgument("job_id is required");
            throw notFound("no such report");
          },
          async putReport() {
            throw alreadyExists("a different report is already stored for job_id j1");
          },
          async getArtifact() {
            throw new ConnectError("artifact not found", Code.NotFound);
          },
          async listWorkspaceReports() {
            throw new Error("connect ECONNREFUSED 10.1.2.3:4222");
          },
        }),
    });
    client = createClient(reportstore.ReportStoreService, createGrpcTransport({ baseUrl: `http://127.0.0.1:${host.port}`, interceptors: [withCredential(testSecrets.service)] }));
  });
  afterAll(async () => {
    await host?.close();
  });

  const refusal = (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => ConnectError.from(e)).then((e) => e && { code: e.code, message: e.rawMessage });

  it("maps each domain error to its code, keeping its message", async () => {
    expect(await refusal(client.getReport({ jobId: "bad" }))).toEqual({ code: Code.InvalidArgument, message: "job_id is required" });
    expect(await refusal(client.getReport({ jobId: "x" }))).toEqual({ code: Code.NotFound, message: "no such report" });
    expect(await refusal(client.putReport({}))).toEqual({ code: Code.AlreadyExists, message: "a different report is already stored for job_id j1" });
  });

  it("passes a ConnectError as it is", async () => {
    expect(await refusal(client.getArtifact({ id: "x" }))).toEqual({ code: Code.NotFound, message: "artifact not found" });
  });

  it("answers anything else with UNAVAILABLE and a generic message, and logs it with the cause", async () => {
    expect(await refusal(client.listWorkspaceReports({}))).toEqual({ code: Code.Unavailable, message: "report store unavailable" });
    const line = lines.find((l) => l.msg === "rpc failed");
    expect(line).toMatchObject({ procedure: "cva.reportstore.v1.ReportStoreService/ListWorkspaceReports", err: { message: "connect ECONNREFUSED 10.1.2.3:4222" } });
    // Domain errors and ConnectErrors are answers, not faults: only the unexpected one was logged.
    expect(lines.filter((l) => l.msg === "rpc failed")).toHaveLength(1);
  });
});
