import { createHash } from "node:crypto";
import { jetstream } from "@nats-io/jetstream";
import { headers, nuid, type NatsConnection } from "@nats-io/transport-node";
import { ARTIFACT_BUCKET } from "../nats/names.ts";
import { newArtifactId, type ArtifactSink } from "./store.ts";

// Object Store chunk size (the client's default), so the report-store reads these objects like its own.
const CHUNK = 128 * 1024;

// Base64url with padding: the Object Store's encoding of object names in subjects and of the digest.
const b64urlPadded = (b: Buffer) => b.toString("base64").replace(/\+/g, "-").replace(/\//g, "_");

/**
 * Adds images to the artifact bucket the way the Object Store client does — chunks on `$O.<bucket>.C.<nuid>`, then
 * the object's metadata on `$O.<bucket>.M.<name>` as a subject rollup — without its `put`, which first reads any
 * existing object of that name and so needs read access to the whole bucket. Scanners run untrusted content; they
 * may add images but never read anyone's (NATS permissions, nats/permissions.ts). Ids are fresh random capabilities,
 * so there is never an old object to replace. The bucket is created by its owner, the report-store.
 */
export function createArtifactWriter(nc: NatsConnection, bucket = ARTIFACT_BUCKET): ArtifactSink {
  const js = jetstream(nc);
  return {
    async put(data, mimeType) {
      const name = newArtifactId();
      const id = nuid.next();
      const sha = createHash("sha256");
      let chunks = 0;
      for (let at = 0; at < data.length; at += CHUNK) {
        const chunk = data.subarray(at, Math.min(at + CHUNK, data.length));
        sha.update(chunk);
        await js.publish(`$O.${bucket}.C.${id}`, chunk);
        chunks++;
      }
      const meta = {
        name,
        description: mimeType,
        options: { max_chunk_size: CHUNK },
        bucket,
        nuid: id,
        size: data.length,
        chunks,
        mtime: new Date().toISOString(),
        digest: `SHA-256=${b64urlPadded(sha.digest())}`,
        deleted: false,
      };
      const h = headers();
      h.set("Nats-Rollup", "sub");
      await js.publish(`$O.${bucket}.M.${b64urlPadded(Buffer.from(name))}`, JSON.stringify(meta), { headers: h });
      return name;
    },
  };
}
