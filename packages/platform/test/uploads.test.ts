// Uploaded creative files travel through the uploads bucket by reference: the edge streams them in, the media worker
// streams them out to a file — each with its own NATS user, as deployed — and the worker can read nothing but the
// object it was handed.
import { createHash, randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Objm } from "@nats-io/obj";
import { connectNats, createUploadReader, createUploadStore, UploadError, type NatsConnection, type UploadReader, type UploadStore } from "@cva/platform";
import { startNatsServer, type TestNatsServer } from "@cva/platform/testing/index.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

async function* chunksOf(data: Uint8Array, size: number): AsyncIterable<Uint8Array> {
  for (let at = 0; at < data.length; at += size) yield data.subarray(at, Math.min(at + size, data.length));
}
const sha256 = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");

describe("uploads bucket: the edge stores, the media worker reads by reference", () => {
  let nats: TestNatsServer;
  let edge: NatsConnection;
  let worker: NatsConnection;
  let store: UploadStore;
  let reader: UploadReader;
  let dir: string;

  beforeAll(async () => {
    nats = await startNatsServer({ users: true });
    edge = await connectNats(nats.url, "edge", { auth: nats.authFor("edge") });
    worker = await connectNats(nats.url, "media-prober", { auth: nats.authFor("media-prober") });
    store = await createUploadStore(edge, { ttlMs: 60_000 });
    reader = createUploadReader(worker);
    dir = await mkdtemp(join(tmpdir(), "cva-uploads-"));
  });
  afterAll(async () => {
    await worker?.close();
    await edge?.close();
    await nats?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("round-trips a 3 MB file sent in odd-sized pieces, byte for byte, with its size and SHA-256", async () => {
    const data = randomBytes(3 * 1024 * 1024 + 12_345);
    const ref = await store.put(chunksOf(data, 70_001), { mimeType: "video/mp4" });
    expect(ref).toEqual({ object: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/), size: data.length, sha256: sha256(data) });
    const path = join(dir, "roundtrip");
    expect(await reader.readToFile(ref, path)).toEqual({ size: data.length, sha256: sha256(data) });
    expect(Buffer.from(await readFile(path)).equals(data)).toBe(true);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    // The same file given as one buffer (a decoded base64 body) is stored the same.
    const whole = await store.put(chunksOf(data, data.length));
    expect([whole.size, whole.sha256]).toEqual([ref.size, ref.sha256]);
    // Every step of both sides was within its user's permissions (the server logs each violation).
    expect(nats.log.filter((l) => /Permissions Violation/i.test(l))).toEqual([]);
  });

  it("stores an empty file as an empty object", async () => {
    const ref = await store.put(chunksOf(new Uint8Array(0), 1));
    expect(ref.size).toBe(0);
    expect(await reader.readToFile(ref, join(dir, "empty"))).toEqual({ size: 0, sha256: sha256(new Uint8Array(0)) });
  });

  it("refuses an upload past its limit and leaves none of its chunks behind", async () => {
    const before = (await new Objm(edge).open("cva_uploads").then((os) => os.status())).size;
    const err = await store.put(chunksOf(randomBytes(600_000), 100_000), { maxBytes: 500_000 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UploadError);
    expect(err).toMatchObject({ code: "too_large", message: "the file is larger than the limit of 500000 bytes" });
    expect((await new Objm(edge).open("cva_uploads").then((os) => os.status())).size).toBe(before);
  });

  it("the reader refuses a reference that does not match the object, and a deleted object", async () => {
    const data = randomBytes(200_000);
    const ref = await store.put(chunksOf(data, 65_536));
    await expect(reader.readToFile({ ...ref, size: ref.size + 1 }, join(dir, "wrong-size"))).rejects.toMatchObject({ code: "size_mismatch" });
    await expect(reader.readToFile({ ...ref, sha256: sha256(Buffer.from("other")) }, join(dir, "wrong-digest"))).rejects.toMatchObject({ code: "digest_mismatch" });
    await expect(reader.readToFile(ref, join(dir, "too-big"), { maxBytes: 1000 })).rejects.toMatchObject({ code: "too_large" });
    await expect(reader.readToFile({ ...ref, object: "../../etc/passwd" }, join(dir, "bad"))).rejects.toMatchObject({ code: "bad_reference" });
    await store.delete(ref.object);
    await expect(reader.readToFile(ref, join(dir, "deleted"))).rejects.toMatchObject({ code: "not_found", message: "the uploaded file is no longer stored" });
  });

  it("the media worker cannot list the bucket nor read an object through the stored-message API", async () => {
    const ref = await store.put(chunksOf(randomBytes(1000), 1000));
    const spy = await new Objm(worker).open("cva_uploads").catch((e: unknown) => e as Error);
    // Opening needs the stream's info, which a reader is not given; listing and get go through APIs it may not use.
    const listed = spy instanceof Error ? spy : await spy.list().then(() => undefined, (e: unknown) => e as Error);
    expect(listed?.message).toMatch(/Permissions Violation|timeout/i);
    const got = spy instanceof Error ? spy : await spy.get(ref.object).then(() => undefined, (e: unknown) => e as Error);
    expect(got?.message).toMatch(/Permissions Violation|timeout/i);
    // Its own reference still reads.
    expect((await reader.readToFile(ref, join(dir, "own"))).size).toBe(1000);
  });
});
