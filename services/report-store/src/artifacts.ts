import { ARTIFACT_BUCKET, createArtifactStore, objectStream, type ArtifactStore } from "@cva/platform";
import type { NatsConnection } from "@nats-io/transport-node";
import { applyMaxAge } from "./retention.ts";

// The platform's Object Store artifacts, with the report retention applied to the bucket even when a worker created
// it first (reports and their images expire together).
export async function openArtifacts(nc: NatsConnection, retentionMs: number): Promise<ArtifactStore> {
  const store = await createArtifactStore(nc, { retentionMs });
  await applyMaxAge(nc, objectStream(ARTIFACT_BUCKET), retentionMs);
  return store;
}
