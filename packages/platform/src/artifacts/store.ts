import { randomBytes } from "node:crypto";
import { Objm, type ObjectStore } from "@nats-io/obj";
import type { NatsConnection } from "@nats-io/transport-node";
import { ARTIFACT_BUCKET } from "../nats/names.ts";
import { jetStreamReplicas, whileForming } from "../nats/replicas.ts";

export interface ArtifactSink {
  // Stores an image and returns its id: 128 random bits, so the artifact URL is a capability.
  put(data: Uint8Array, mimeType: string): Promise<string>;
}

export interface ArtifactStore extends ArtifactSink {
  get(id: string): Promise<{ data: Uint8Array; mimeType: string } | undefined>;
}

const ID = /^[A-Za-z0-9_-]{22}$/;

export const newArtifactId = () => randomBytes(16).toString("base64url");

// Report images live in the JetStream Object Store, written by whichever worker made them and read by the
// report-store; retention is the bucket's TTL.
export async function createArtifactStore(nc: NatsConnection, opts: { retentionMs?: number } = {}): Promise<ArtifactStore> {
  const objm = new Objm(nc);
  const store: ObjectStore = await whileForming(() => objm.create(ARTIFACT_BUCKET, { replicas: jetStreamReplicas(nc), ...(opts.retentionMs ? { ttl: opts.retentionMs * 1_000_000 } : {}) }));
  return {
    async put(data, mimeType) {
      const id = newArtifactId();
      await store.putBlob({ name: id, description: mimeType }, data);
      return id;
    },
    async get(id) {
      if (!ID.test(id)) return undefined;
      const info = await store.info(id);
      if (!info || info.deleted) return undefined;
      const data = await store.getBlob(id);
      return data ? { data, mimeType: info.description || "application/octet-stream" } : undefined;
    },
  };
}

// For unit tests of scanners that do not need NATS.
export function createMemoryArtifactSink(): ArtifactSink & { get(id: string): { data: Uint8Array; mimeType: string } | undefined } {
  const items = new Map<string, { data: Uint8Array; mimeType: string }>();
  return {
    async put(data, mimeType) {
      const id = newArtifactId();
      items.set(id, { data, mimeType });
      return id;
    },
    get: (id) => items.get(id),
  };
}
