import { createHash } from "node:crypto";
import type { HandlerContext } from "@connectrpc/connect";
import { UploadError } from "@cva/platform";
import type { scan } from "@cva/contracts";
import { payloadError, processingError } from "../errors.ts";
import type { EdgeDeps } from "../ports.ts";
import { fileLimitOf } from "../scan/job.ts";
import { fileRequestHash } from "../scan/request-hash.ts";
import type { FileReportKind, Principal, ReceivedScanRequest, ScanOutcome, StoredFileRef } from "../scan/types.ts";
import type { EdgeUseCases } from "../use-cases.ts";
import { checkFileUrl } from "../validation/fields.ts";
import { parseIdempotencyKey } from "../validation/idempotency-key.ts";
import { FILE_WHAT } from "../validation/request.ts";

// ScanVideo / ScanImage / ScanAudio: a client stream whose first message carries the fields and whose following ones
// carry the file's bytes, in order. The fields are checked before a chunk is read; the chunks go straight into the
// uploads bucket (the same put() as the JSON door's multipart: 128 KB chunks, SHA-256 and the size limit as they
// arrive), so the edge never holds the file; the stored object is removed once the call is answered. A customer at its
// in-flight cap has its chunks only digested (its answer is the JSON door's: scan/admission.ts).

type FileStreamMessage = scan.ScanVideoRequest | scan.ScanImageRequest | scan.ScanAudioRequest;

export interface FileScanDeps {
  useCases: EdgeUseCases;
  uploads: EdgeDeps["uploads"];
  limits: EdgeDeps["config"]["limits"];
  /** The v3 fields, checked as the other methods check them (service.ts). */
  v3Fields(f: { specId: number; workspaceId: bigint; name: string }): { specId: number; workspaceId: number; name: string };
}

/** Largest chunk message: 1 MiB of bytes (the documented chunk size) with the fields' room. */
export const FILE_CHUNK_BYTES = 1024 * 1024;

export function createFileScan(deps: FileScanDeps) {
  return async function scanFile(kind: FileReportKind, messages: AsyncIterable<FileStreamMessage>, p: Principal, ctx: HandlerContext): Promise<ScanOutcome> {
    const it = messages[Symbol.asyncIterator]();
    const first = await it.next();
    if (first.done || first.value.part.case !== "fields") throw payloadError("fields: the first message of the stream must carry the fields");
    const f = first.value.part.value;
    const fields = { kind, ...deps.v3Fields(f) };
    const idempotencyKey = parseIdempotencyKey(ctx.requestHeader.get("idempotency-key") ?? undefined, "idempotency-key");
    const maxBytes = fileLimitOf(kind, deps.limits);
    const what = FILE_WHAT[kind];
    const fileName = f.fileName.slice(0, 512);
    const mime = f.mimeType.slice(0, 255);
    // The chunks, in order; another fields message is a payload error.
    const chunks = (async function* () {
      for (let n = await it.next(); !n.done; n = await it.next()) {
        if (n.value.part.case !== "chunk") throw payloadError("fields: only the first message of the stream may carry the fields");
        yield n.value.part.value;
      }
    })();

    const ticket = deps.useCases.admission.enter(p.customerId, kind);
    const atCap = "atCap" in ticket ? ticket.atCap : undefined;
    let stored: StoredFileRef | undefined;
    try {
      let req: ReceivedScanRequest;
      if (f.url !== "") {
        const url = checkFileUrl(f.url, "url");
        if (!(await chunks.next()).done) throw payloadError("chunk: no file bytes may follow a url");
        req = atCap
          ? { ...fields, withheld: { requestHash: fileRequestHash(fields, { url }), lane: atCap.lane, max: atCap.max } }
          : { ...fields, file: { url } };
      } else if (atCap) {
        // Withheld: digested as the chunks pass, never held.
        const sha = createHash("sha256");
        let size = 0;
        for await (const c of chunks) {
          size += c.length;
          if (size > maxBytes) throw payloadError(`file: the ${what} is larger than the limit of ${maxBytes} bytes`);
          sha.update(c);
        }
        if (size === 0) throw payloadError("file: must not be empty");
        req = { ...fields, withheld: { requestHash: fileRequestHash(fields, { sha256: sha.digest("hex"), fileName, mime }), lane: atCap.lane, max: atCap.max } };
      } else {
        if (!deps.uploads) throw processingError("file uploads are not available on this server; give the file as `url`");
        try {
          stored = await deps.uploads.put(chunks, { maxBytes, mimeType: mime });
        } catch (err) {
          if (err instanceof UploadError && err.code === "too_large") throw payloadError(`file: the ${what} is larger than the limit of ${maxBytes} bytes`);
          throw err;
        }
        if (stored.size === 0) throw payloadError("file: must not be empty");
        req = { ...fields, file: { stored, fileName, mime } };
      }
      return await deps.useCases.scans.scan(p, req, undefined, { idempotencyKey });
    } finally {
      if ("release" in ticket) ticket.release();
      if (stored) await deps.uploads?.delete(stored.object).catch(() => undefined);
    }
  };
}
