// NATS identities: credentials from the environment or the URL, per-user inboxes, and the artifact writer that lets a
// scanner add images without read access to the bucket (its objects must read back like the client's own).
import { createArtifactStore, createArtifactWriter, connectNats, isAuthorizationError, natsAnswers, natsAuthFromEnv, natsUserOf, splitUrlCredentials } from "@cva/platform";
import { startNatsServer, type TestNatsServer } from "@cva/platform/testing/index.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

describe("NATS credentials", () => {
  it("come from NATS_USER/NATS_PASSWORD or the URL", () => {
    expect(natsAuthFromEnv({})).toBeUndefined();
    expect(natsAuthFromEnv({ NATS_USER: "edge", NATS_PASSWORD: "pw" })).toEqual({ user: "edge", password: "pw" });
    expect(() => natsAuthFromEnv({ NATS_USER: "edge" })).toThrow(/together/);
    expect(splitUrlCredentials("nats://edge:p%40ss@nats:4222, nats://other:4222")).toEqual({
      servers: ["nats://nats:4222", "nats://other:4222"],
      auth: { user: "edge", password: "p@ss" },
    });
    expect(splitUrlCredentials("127.0.0.1:4222")).toEqual({ servers: ["127.0.0.1:4222"] });
  });
});

describe("a NATS server with per-service users", () => {
  let nats: TestNatsServer;
  beforeAll(async () => void (nats = await startNatsServer({ users: true })));
  afterAll(async () => nats?.stop());

  it("refuses anonymous connections yet counts as answering (nobody starts a second server on its port)", async () => {
    const err = await connectNats(nats.url, "anonymous", { timeoutMs: 3000 }).then(() => undefined, (e: unknown) => e);
    expect(isAuthorizationError(err)).toBe(true);
    expect(await natsAnswers(nats.url)).toBe(true);
  });

  it("accepts a user's credentials in the URL and scopes its inbox to it", async () => {
    const url = nats.url.replace("nats://", `nats://report-store:${encodeURIComponent(nats.passwords!["report-store"])}@`);
    const nc = await connectNats(url, "url-credentials");
    expect(natsUserOf(nc)).toBe("report-store");
    // Only possible with replies under _INBOX.report-store.>: a JetStream API request.
    const store = await createArtifactStore(nc);
    expect(await store.get("AAAAAAAAAAAAAAAAAAAAAA")).toBeUndefined();
    await nc.close();
  });

  it("lets a scanner add images the report-store reads back byte for byte, while it cannot read them itself", async () => {
    const owner = await connectNats(nats.url, "report-store", { auth: nats.authFor("report-store") });
    const scanner = await connectNats(nats.url, "tag-scanner", { auth: nats.authFor("tag-scanner") });
    try {
      const store = await createArtifactStore(owner);
      const writer = createArtifactWriter(scanner);
      const small = new TextEncoder().encode("GIF89a tiny");
      const large = new Uint8Array(300_000).map((_, i) => (i * 7) % 251);
      for (const [data, mime] of [[small, "image/gif"], [large, "image/png"], [new Uint8Array(0), "image/jpeg"]] as const) {
        const id = await writer.put(data, mime);
        expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
        const back = await store.get(id);
        expect(back?.mimeType).toBe(mime);
        expect(Buffer.from(back!.data).equals(Buffer.from(data))).toBe(true);
      }
      // Knowing an id is not enough for the scanner: reading needs the bucket's stored-message API.
      const known = await writer.put(small, "image/gif");
      const readAttempt = await createArtifactStore(scanner).then((spy) => spy.get(known)).then(() => undefined, (e: unknown) => e as Error);
      expect(readAttempt?.message).toMatch(/Permissions Violation/);
    } finally {
      await scanner.close();
      await owner.close();
    }
  });
});
