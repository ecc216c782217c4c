// The credential check every internal service is started with (startServiceHost): where the secrets come from, and
// what a caller without them is told. The full stack's doors are tested in test/e2e/internal-doors-cases.ts.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { auth, health } from "@cva/contracts";
import {
  credentialsFor, matchesDigest, methodId, secretDigest, serviceCredentialsFromEnv, serviceSecretFromEnv, silentLogger, startServiceHost, withCredential,
  type ServiceHost,
} from "@cva/platform";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const SERVICE = "s".repeat(20) + "-service";
const ADMIN = "a".repeat(20) + "-admin";

describe("credentials from the environment", () => {
  let dir: string;
  beforeAll(() => void (dir = mkdtempSync(join(tmpdir(), "cva-cred-"))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("refuses to start without a service credential, or with a short one", () => {
    expect(() => serviceCredentialsFromEnv({})).toThrow(/CVA_SERVICE_SECRET or CVA_SERVICE_SECRET_SHA256 is required/);
    expect(() => serviceCredentialsFromEnv({ CVA_SERVICE_SECRET: "short" })).toThrow(/at least 16 characters/);
    expect(() => serviceCredentialsFromEnv({ CVA_SERVICE_SECRET_SHA256: "not-hex" })).toThrow(/SHA-256 digest in hex/);
    expect(() => serviceSecretFromEnv({})).toThrow(/CVA_SERVICE_SECRET/);
  });

  it("takes the secret, its digest, or either from a file; the admin credential is optional", () => {
    const digest = secretDigest(SERVICE);
    expect(serviceCredentialsFromEnv({ CVA_SERVICE_SECRET: SERVICE })).toEqual({ serviceDigest: digest });
    expect(serviceCredentialsFromEnv({ CVA_SERVICE_SECRET_SHA256: digest.toUpperCase() })).toEqual({ serviceDigest: digest });
    writeFileSync(join(dir, "svc"), SERVICE + "\n");
    writeFileSync(join(dir, "adm"), secretDigest(ADMIN));
    expect(serviceCredentialsFromEnv({ CVA_SERVICE_SECRET_FILE: join(dir, "svc"), CVA_ADMIN_SECRET_SHA256_FILE: join(dir, "adm") })).toEqual(credentialsFor({ service: SERVICE, admin: ADMIN }));
    expect(serviceSecretFromEnv({ CVA_SERVICE_SECRET_FILE: join(dir, "svc") })).toBe(SERVICE);
  });

  it("compares against the digest", () => {
    expect(matchesDigest(SERVICE, secretDigest(SERVICE))).toBe(true);
    expect(matchesDigest(SERVICE + "x", secretDigest(SERVICE))).toBe(false);
    expect(matchesDigest("", secretDigest(SERVICE))).toBe(false);
  });
});

describe("the credential interceptor of the service host", () => {
  let withAdmin: ServiceHost;
  let withoutAdmin: ServiceHost;
  const createKey = methodId(auth.AuthService, auth.AuthService.method.createKey);
  // A stand-in AuthService: the interceptor runs before any implementation.
  const register = (router: import("@connectrpc/connect").ConnectRouter) =>
    router.service(auth.AuthService, {
      authenticate: async () => ({ customerId: "c", keyId: "k" }),
      createKey: async () => ({ apiKey: "cva_new" }),
    });
  const start = (credentials: ReturnType<typeof credentialsFor>) =>
    startServiceHost({ name: "t", port: 0, metricsPort: 0, credentials, adminMethods: [createKey], logger: silentLogger(), serviceNames: [auth.AuthService.typeName], register });
  const client = (host: ServiceHost, header?: string) =>
    createClient(auth.AuthService, createGrpcTransport({
      baseUrl: `http://127.0.0.1:${host.port}`,
      interceptors: header === undefined ? [] : [(next) => (req) => (req.header.set("authorization", header), next(req))],
    }));
  const refusal = (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => ({ code: ConnectError.from(e).code, message: ConnectError.from(e).rawMessage }));

  beforeAll(async () => {
    withAdmin = await start(credentialsFor({ service: SERVICE, admin: ADMIN }));
    withoutAdmin = await start(credentialsFor({ service: SERVICE }));
  });
  afterAll(async () => {
    await withAdmin?.close();
    await withoutAdmin?.close();
  });

  it("lets the service credential through to service methods, case-insensitive scheme", async () => {
    expect((await client(withAdmin, `Bearer ${SERVICE}`).authenticate({ apiKey: "x" })).customerId).toBe("c");
    expect((await client(withAdmin, `bearer ${SERVICE}`).authenticate({ apiKey: "x" })).customerId).toBe("c");
    const viaHelper = createClient(auth.AuthService, createGrpcTransport({ baseUrl: `http://127.0.0.1:${withAdmin.port}`, interceptors: [withCredential(SERVICE)] }));
    expect((await viaHelper.authenticate({ apiKey: "x" })).customerId).toBe("c");
  });

  it("answers UNAUTHENTICATED without the credential, with a wrong one, or with a malformed header", async () => {
    const unauthenticated = { code: Code.Unauthenticated, message: "missing or invalid service credential" };
    for (const header of [undefined, "", "Bearer", `Basic ${SERVICE}`, SERVICE, `Bearer ${SERVICE}x`, `Bearer ${SERVICE} extra`, `Bearer ${ADMIN}`]) {
      expect(await refusal(client(withAdmin, header).authenticate({ apiKey: "x" })), String(header)).toEqual(unauthenticated);
    }
  });

  it("keeps admin methods for the admin credential: PERMISSION_DENIED for the service one, refused when none is configured", async () => {
    expect((await client(withAdmin, `Bearer ${ADMIN}`).createKey({ customerId: "c" })).apiKey).toBe("cva_new");
    expect(await refusal(client(withAdmin, `Bearer ${SERVICE}`).createKey({ customerId: "c" }))).toEqual({ code: Code.PermissionDenied, message: "this method needs the admin credential" });
    expect(await refusal(client(withAdmin).createKey({ customerId: "c" }))).toEqual({ code: Code.Unauthenticated, message: "missing or invalid admin credential" });
    expect((await refusal(client(withoutAdmin, `Bearer ${ADMIN}`).createKey({ customerId: "c" })))?.code).toBe(Code.Unauthenticated);
  });

  it("leaves grpc.health.v1 open and counts refused calls in the metrics", async () => {
    const h = createClient(health.Health, createGrpcTransport({ baseUrl: `http://127.0.0.1:${withAdmin.port}` }));
    expect((await h.check({ service: "" })).status).toBe(health.HealthCheckResponse_ServingStatus.SERVING);
    const metrics = await fetch(`http://127.0.0.1:${withAdmin.metricsPort}/metrics`);
    expect(await metrics.text()).toMatch(/cva_rpc_duration_seconds_count\{service="cva.auth.v1.AuthService",method="Authenticate",code="16"\} [1-9]/);
  });
});
