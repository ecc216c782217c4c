// The gRPC door answers unexpected errors as the JSON door does (app.ts error handler): logged once with the error,
// the client told only the generic processing_error; documented errors are answers and are not logged.
import { Writable } from "node:stream";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { scan } from "@cva/contracts";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authError } from "../src/errors.ts";
import { startGrpcServer, type GrpcServer } from "../src/grpc/server.ts";
import { DEFAULT_LIMITS } from "../src/ports.ts";
import type { EdgeUseCases } from "../src/use-cases.ts";

describe("gRPC edge: unexpected errors", () => {
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
  let server: GrpcServer;
  let client: ReturnType<typeof createClient<typeof scan.ScanService>>;

  beforeAll(async () => {
    // Only what these calls reach: authenticate, and getReport after it.
    const useCases = {
      async authenticate(key: string | undefined) {
        if (key === "key-bug") throw new TypeError("Cannot read properties of undefined (reading 'customerId')");
        if (key === "key-leak") throw new ConnectError("dial tcp 10.1.2.3:9101: connection refused", Code.Unavailable);
        if (key !== "key-a") throw authError("X-ApiKey: unknown or revoked API key");
        return { customerId: "c", keyId: "k" };
      },
    } as unknown as EdgeUseCases;
    server = await startGrpcServer({ port: 0, host: "127.0.0.1", useCases, limits: DEFAULT_LIMITS, isKnownSpecId: (id) => id === 0, logger });
    client = createClient(scan.ScanService, createGrpcTransport({ baseUrl: `http://127.0.0.1:${server.port}` }));
  });
  afterAll(async () => {
    await server?.close();
  });

  const refusal = (key: string) =>
    client.getReport({ jobId: "j" }, { headers: { "x-apikey": key } }).then(() => undefined, (e: unknown) => ConnectError.from(e)).then((e) => e && { code: e.code, message: e.rawMessage });

  it("a bug or an internal call's error: logged with the error, answered with the generic processing_error", async () => {
    expect(await refusal("key-bug")).toEqual({ code: Code.Unavailable, message: "the scan could not be completed; retry later" });
    expect(await refusal("key-leak")).toEqual({ code: Code.Unavailable, message: "the scan could not be completed; retry later" });
    const logged = lines.filter((l) => l.msg === "unhandled error");
    expect(logged.map((l) => (l.err as { message: string }).message)).toEqual([
      "Cannot read properties of undefined (reading 'customerId')",
      "[unavailable] dial tcp 10.1.2.3:9101: connection refused",
    ]);
    expect(logged[0]).toMatchObject({ procedure: "GetReport" });
  });

  it("a documented error is an answer, not logged", async () => {
    const before = lines.length;
    expect(await refusal("key-nope")).toEqual({ code: Code.Unauthenticated, message: "X-ApiKey: unknown or revoked API key" });
    expect(lines.slice(before).filter((l) => l.msg === "unhandled error")).toEqual([]);
  });
});
