import { createHash, randomBytes } from "node:crypto";
import { createWriteStream } from "node:fs";
import { once } from "node:events";
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager, type JetStreamManager } from "@nats-io/jetstream";
import { Objm } from "@nats-io/obj";
import { headers, type NatsConnection } from "@nats-io/transport-node";
import { UPLOADS_BUCKET } from "../nats/names.ts";
import { jetStreamReplicas, whileForming } from "../nats/replicas.ts";
import { newArtifactId } from "./store.ts";

/*
 * Uploaded creative files (scanVideo, scanImage, scanAudio): a file never travels in a NATS message (1 MB by default,
 * and a 500 MB video would sit whole in two processes' memory). The requester (the edge) streams the upload into the
 * Object Store bucket `cva_uploads` chunk by chunk and puts only a reference in the job (cva.jobs.v1.StoredFile: object
 * name, size, SHA-256); the worker streams the object's chunks into a local file. Neither side ever holds the file.
 *
 * Objects are laid out exactly as the Object Store client lays them out (chunks on `$O.<bucket>.C.<id>`, metadata as a
 * subject rollup on `$O.<bucket>.M.<name>`), so the client's tools read them; but both ends are written here:
 *  - the chunk id is 128 random bits, not a NUID (whose sequential half makes a neighbour's chunks guessable), and the
 *    object name is a fresh random capability: a reader that knows one upload learns nothing about another;
 *  - the reader needs neither a listing nor the bucket's stored-message API: it reads one object's metadata by a direct
 *    get on that object's own subject and its chunks through an ephemeral consumer filtered to that object's chunk
 *    subject (NATS permissions can say exactly that: nats/permissions.ts `uploadReader`).
 * The bucket is the requester's (it creates it, with a TTL as the backstop of its own deletes after each scan).
 */

/** The Object Store client's default chunk size: well under any NATS max_payload. */
const CHUNK = 128 * 1024;
/** Chunks asked for per pull: at most this × CHUNK bytes (2 MB) are in flight to the reader. */
const PULL_BATCH = 16;
/**
 * Chunks published and not yet acknowledged by JetStream, at most (1 MB in flight from the writer). One chunk at a
 * time waited one stream write and ack round trip per 128 KB: a 23 MB upload (the bench's 30 s 1080p file) spent
 * ~180 of them in the edge's upload door. The server stores one subject's messages in the order they arrive, so the
 * chunks stay in order; memory stays bounded by the window.
 */
const PUBLISH_WINDOW = 8;

/** What the job carries (cva.jobs.v1.StoredFile). */
export interface StoredUpload {
  /** The object's name in the bucket: 22 base64url characters, a capability. */
  object: string;
  size: number;
  /** Lowercase hex. */
  sha256: string;
}

/** Client-safe reasons an upload could not be stored or read. */
export class UploadError extends Error {
  constructor(
    readonly code: "too_large" | "not_found" | "size_mismatch" | "digest_mismatch" | "truncated" | "bad_reference",
    message: string,
  ) {
    super(message);
    this.name = "UploadError";
  }
}

export interface UploadStore {
  /**
   * Streams `source` into the bucket, re-chunked at 128 KB; memory stays at PUBLISH_WINDOW + 1 chunks whatever the file's size. Past
   * `maxBytes` it stops reading, removes the chunks already stored and throws UploadError "too_large".
   */
  put(source: AsyncIterable<Uint8Array>, opts?: { maxBytes?: number; mimeType?: string; signal?: AbortSignal }): Promise<StoredUpload>;
  /** Removes the object and its chunks (after its scan); a missing object is not an error. */
  delete(object: string): Promise<void>;
}

export interface UploadReader {
  /**
   * Streams the object's chunks into `path` (created, mode 0600) and checks what arrived against the reference and the
   * object's own metadata: size, SHA-256, chunk count. Throws UploadError for a missing, oversize or inconsistent object.
   */
  readToFile(ref: StoredUpload, path: string, opts?: { maxBytes?: number; signal?: AbortSignal; timeoutMs?: number }): Promise<{ size: number; sha256: string }>;
}

const OBJECT = /^[A-Za-z0-9_-]{22}$/;
const nanos = (ms: number) => ms * 1_000_000;
// The Object Store's encoding of names in subjects and of its digest: base64url with padding.
const b64urlPadded = (b: Buffer) => b.toString("base64").replace(/\+/g, "-").replace(/\//g, "_");
const metaSubject = (bucket: string, object: string) => `$O.${bucket}.M.${b64urlPadded(Buffer.from(object))}`;
const chunkSubject = (bucket: string, id: string) => `$O.${bucket}.C.${id}`;

interface ObjectMeta {
  name: string;
  nuid: string;
  size: number;
  chunks: number;
  digest: string;
  deleted?: boolean;
}

/** The requester's side: creates the bucket (TTL `ttlMs`, the backstop for uploads whose scan never deleted them). */
export async function createUploadStore(nc: NatsConnection, opts: { ttlMs?: number; bucket?: string } = {}): Promise<UploadStore> {
  const bucket = opts.bucket ?? UPLOADS_BUCKET;
  const stream = `OBJ_${bucket}`;
  const objm = new Objm(nc);
  await whileForming(() => objm.create(bucket, { replicas: jetStreamReplicas(nc), ttl: nanos(opts.ttlMs ?? 3600_000) }));
  const js = jetstream(nc);
  const jsm = await jetstreamManager(nc);
  const purgeChunks = (id: string) => jsm.streams.purge(stream, { filter: chunkSubject(bucket, id) }).then(() => undefined, () => undefined);

  return {
    async put(source, putOpts = {}) {
      const max = putOpts.maxBytes ?? Number.MAX_SAFE_INTEGER;
      const object = newArtifactId();
      const id = randomBytes(16).toString("base64url");
      const subject = chunkSubject(bucket, id);
      const sha = createHash("sha256");
      let size = 0;
      let chunks = 0;
      // One chunk being filled: every byte is copied once, whatever sizes the source yields (one 15 MB buffer or
      // 16 KB socket reads), and memory stays at that chunk plus the PUBLISH_WINDOW published ones awaiting their ack.
      let chunk = Buffer.alloc(CHUNK);
      let filled = 0;
      // Acks still awaited, oldest first; a failed publish rejects the oldest wait that covers it, so put throws.
      const inFlight: Promise<unknown>[] = [];
      const publish = async (data: Buffer) => {
        sha.update(data);
        const acked = js.publish(subject, data);
        acked.catch(() => undefined); // observed below; kept from being an unhandled rejection meanwhile
        inFlight.push(acked);
        chunks++;
        if (inFlight.length >= PUBLISH_WINDOW) await inFlight.shift();
      };
      try {
        for await (const part of source) {
          putOpts.signal?.throwIfAborted();
          size += part.length;
          if (size > max) throw new UploadError("too_large", `the file is larger than the limit of ${max} bytes`);
          for (let at = 0; at < part.length; ) {
            const n = Math.min(CHUNK - filled, part.length - at);
            chunk.set(part.subarray(at, at + n), filled);
            filled += n;
            at += n;
            if (filled === CHUNK) {
              await publish(chunk);
              chunk = Buffer.alloc(CHUNK);
              filled = 0;
            }
          }
        }
        if (filled > 0) await publish(chunk.subarray(0, filled));
        // Every chunk stored before the metadata names the object complete.
        while (inFlight.length) await inFlight.shift();
        const digest = sha.digest();
        const meta = {
          name: object, description: putOpts.mimeType ?? "", options: { max_chunk_size: CHUNK }, bucket, nuid: id, size, chunks,
          mtime: new Date().toISOString(), digest: `SHA-256=${b64urlPadded(digest)}`, deleted: false,
        };
        const h = headers();
        h.set("Nats-Rollup", "sub");
        await js.publish(metaSubject(bucket, object), JSON.stringify(meta), { headers: h });
        return { object, size, sha256: digest.toString("hex") };
      } catch (err) {
        // The chunks still in flight are stored (or refused) first, so that the purge leaves none of them behind.
        await Promise.allSettled(inFlight);
        await purgeChunks(id);
        throw err;
      }
    },
    async delete(object) {
      if (!OBJECT.test(object)) return;
      const info = await readMeta(jsm, bucket, object);
      if (!info) return;
      await purgeChunks(info.nuid);
      // The metadata entry itself goes too: a later read of the name finds nothing.
      await jsm.streams.purge(stream, { filter: metaSubject(bucket, object) }).catch(() => undefined);
    },
  };
}

async function readMeta(jsm: JetStreamManager, bucket: string, object: string): Promise<ObjectMeta | undefined> {
  const m = await jsm.direct.getMessage(`OBJ_${bucket}`, { last_by_subj: metaSubject(bucket, object) });
  if (!m || m.data.length === 0) return undefined;
  const meta = m.json<ObjectMeta>();
  return meta.deleted ? undefined : meta;
}

/** The worker's side: reads objects it is given a reference to, nothing else. */
export function createUploadReader(nc: NatsConnection, opts: { bucket?: string } = {}): UploadReader {
  const bucket = opts.bucket ?? UPLOADS_BUCKET;
  const stream = `OBJ_${bucket}`;
  const js = jetstream(nc);
  return {
    async readToFile(ref, path, readOpts = {}) {
      if (!OBJECT.test(ref.object)) throw new UploadError("bad_reference", "the file reference is not valid");
      const max = readOpts.maxBytes ?? Number.MAX_SAFE_INTEGER;
      if (ref.size > max) throw new UploadError("too_large", `the file is larger than the limit of ${max} bytes`);
      const jsm = await jetstreamManager(nc);
      const meta = await readMeta(jsm, bucket, ref.object);
      if (!meta) throw new UploadError("not_found", "the uploaded file is no longer stored");
      if (meta.size !== ref.size) throw new UploadError("size_mismatch", "the uploaded file's size does not match its reference");
      if (!/^[A-Za-z0-9_-]{1,64}$/.test(meta.nuid)) throw new UploadError("bad_reference", "the uploaded file's metadata is not valid");

      const sha = createHash("sha256");
      const out = createWriteStream(path, { flags: "wx", mode: 0o600 });
      const closed = once(out, "close");
      // Awaited below on every path; this only keeps an early write error from counting as unhandled meanwhile.
      closed.catch(() => undefined);
      let size = 0;
      let received = 0;
      let consumer: string | undefined;
      const deadline = readOpts.timeoutMs ? Date.now() + readOpts.timeoutMs : undefined;
      try {
        if (meta.chunks > 0) {
          consumer = `u${randomBytes(12).toString("hex")}`;
          // Ephemeral (removed by the server soon after we stop), in memory, filtered to this object's chunks only.
          await jsm.consumers.add(stream, {
            name: consumer, filter_subject: chunkSubject(bucket, meta.nuid), ack_policy: AckPolicy.None,
            deliver_policy: DeliverPolicy.All, inactive_threshold: nanos(30_000), mem_storage: true, num_replicas: 1,
          });
          const c = await js.consumers.get(stream, consumer);
          while (received < meta.chunks) {
            readOpts.signal?.throwIfAborted();
            if (deadline && Date.now() > deadline) throw new UploadError("truncated", "reading the uploaded file timed out");
            const batch = await c.fetch({ max_messages: Math.min(PULL_BATCH, meta.chunks - received), expires: 5_000 });
            let got = 0;
            for await (const m of batch) {
              got++;
              received++;
              size += m.data.length;
              if (size > meta.size || size > max) throw new UploadError("size_mismatch", "the uploaded file is larger than its reference says");
              sha.update(m.data);
              if (!out.write(m.data)) await once(out, "drain");
            }
            // No chunk within the pull's expiry: the object is incomplete (its chunks aged out or were purged).
            if (got === 0) throw new UploadError("truncated", "the uploaded file is incomplete");
          }
        }
        out.end();
        await closed;
      } catch (err) {
        out.destroy();
        await closed.catch(() => undefined);
        throw err;
      } finally {
        if (consumer) await jsm.consumers.delete(stream, consumer).catch(() => undefined);
      }
      if (size !== meta.size) throw new UploadError("truncated", "the uploaded file is incomplete");
      const digest = sha.digest();
      if (meta.digest !== `SHA-256=${b64urlPadded(digest)}` || (ref.sha256 && ref.sha256.toLowerCase() !== digest.toString("hex"))) {
        throw new UploadError("digest_mismatch", "the uploaded file does not match its checksum");
      }
      return { size, sha256: digest.toString("hex") };
    },
  };
}
