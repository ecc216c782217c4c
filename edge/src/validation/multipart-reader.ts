import { createHash } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import type { Readable } from "node:stream";
import { Busboy, type BusboyFileStream } from "@fastify/busboy";
import { UploadError } from "@cva/platform";
import { ApiError, payloadError, processingError } from "../errors.ts";
import type { EdgeDeps } from "../ports.ts";
import type { StoredFileRef } from "../scan/types.ts";

// A raw-file scan's multipart/form-data body (POST /v3/scanVideo|Image|Audio), read as it streams in: the `file` part
// goes chunk by chunk into the uploads bucket (platform artifacts/uploads.ts: 128 KB chunks, SHA-256 computed on the
// way, the size limit enforced as bytes arrive), so the edge never holds the file — a 500 MB master costs it one
// chunk and the socket's buffers. For a request the edge does not keep (its customer at the in-flight cap) the part
// is only counted and digested. The form's other fields (spec_id, workspace_id, name) are small strings, validated
// afterwards by request.ts like the JSON members; unknown fields and further file parts are ignored.

/** The form as read: its text fields, and the file part's facts (stored, unless withheld). */
export class MultipartScanBody {
  constructor(
    readonly fields: Readonly<Record<string, string>>,
    readonly file: ReceivedFile | undefined,
  ) {}
}

export interface ReceivedFile {
  /** The object in the uploads bucket; absent when the request was withheld (only digested). */
  stored?: StoredFileRef;
  sha256: string;
  size: number;
  /** The part's filename and Content-Type, as the client sent them (reports only). */
  fileName: string;
  mime: string;
}

export interface MultipartOptions {
  /** The endpoint's file limit (MAX_VIDEO_BYTES, …). */
  maxBytes: number;
  /** "video", "image", "audio file": how messages name the file. */
  what: string;
  /** Store the file (false: the customer is at its in-flight cap; only digest it). */
  keep: boolean;
  uploads: EdgeDeps["uploads"];
  contentLength?: number;
}

const FIELDS = new Set(["spec_id", "workspace_id", "name"]);
/** Longest text field kept: `name` (256 code points, up to 4 bytes each) with room; longer ones are refused. */
const MAX_FIELD_BYTES = 4 * 1024;
/** What the form may add around its file: at most 16 fields of 4 KB, part headers, boundaries. */
export const FORM_OVERHEAD_BYTES = 96 * 1024;
const MAX_NAME_CHARS = 512;

export const isMultipart = (contentType: string | undefined) => /^multipart\/form-data\s*(;|$)/i.test(contentType ?? "");

const tooLarge = (o: MultipartOptions) => payloadError(`file: the ${o.what} is larger than the limit of ${o.maxBytes} bytes`);

/**
 * Reads the form. Resolves once the body has ended and the file part is stored; rejects with the documented
 * payload_error (over the limit, not a form, a field too long) — having removed whatever of the file it had stored.
 */
export function readMultipartScan(payload: Readable, headers: IncomingHttpHeaders, o: MultipartOptions): Promise<MultipartScanBody> {
  return new Promise((resolve, reject) => {
    // A body that declares more than the file limit and the form around it cannot fit: refused before any byte is read.
    if (o.contentLength !== undefined && o.contentLength > o.maxBytes + FORM_OVERHEAD_BYTES) return reject(tooLarge(o));
    if (o.keep && !o.uploads) return reject(processingError("file uploads are not available on this server; give the file as `data` or `url`"));
    let bb: ReturnType<typeof Busboy>;
    try {
      bb = Busboy({
        headers: headers as IncomingHttpHeaders & { "content-type": string },
        limits: { fields: 16, fieldSize: MAX_FIELD_BYTES, fieldNameSize: 64, files: 1, parts: 24, headerPairs: 16 },
      });
    } catch {
      return reject(payloadError("body: not a valid multipart/form-data body (its Content-Type needs a boundary)"));
    }
    const fields: Record<string, string> = {};
    let fileStream: BusboyFileStream | undefined;
    let file: Promise<ReceivedFile> | undefined;
    let settled = false;
    let stored: StoredFileRef | undefined;

    // A parse error is the client's (its body is not a form); anything else not documented (the uploads bucket
    // failing) is ours, answered generically.
    const fail = (err: unknown, parseError = false) => {
      if (settled) return;
      settled = true;
      payload.unpipe(bb);
      // The rest of the body is read and dropped (never held): the client gets its answer as soon as it listens.
      payload.resume();
      fileStream?.destroy(err instanceof Error ? err : new Error(String(err)));
      if (stored && o.uploads) void o.uploads.delete(stored.object).catch(() => undefined);
      if (file) void file.then((f) => f.stored && o.uploads?.delete(f.stored.object)).catch(() => undefined);
      reject(
        err instanceof ApiError
          ? err
          : parseError
            ? payloadError("body: not a valid multipart/form-data body")
            : Object.assign(processingError("the upload could not be stored; retry later"), { detail: String(err) }),
      );
    };

    bb.on("field", (name, value, _nameTruncated, valueTruncated) => {
      if (!FIELDS.has(name)) return;
      if (valueTruncated) return fail(payloadError(`${name}: longer than ${MAX_FIELD_BYTES} bytes`));
      fields[name] = value;
    });
    bb.on("file", (name, stream, fileName, _encoding, mime) => {
      if (name !== "file" || file) return void stream.resume();
      fileStream = stream;
      file = receive(stream, fileName, mime, o).then((f) => {
        stored = f.stored;
        return f;
      });
      file.catch(fail);
    });
    bb.on("error", (err) => fail(err, true));
    bb.on("finish", () => {
      if (settled) return;
      (file ?? Promise.resolve(undefined)).then((f) => {
        if (settled) {
          if (f?.stored) void o.uploads?.delete(f.stored.object).catch(() => undefined);
          return;
        }
        settled = true;
        resolve(new MultipartScanBody(fields, f));
      }, fail);
    });
    // A client that leaves mid-upload: what was stored of its file is removed (put() purges its chunks on the error).
    payload.on("close", () => {
      if (!(payload as Readable & { complete?: boolean }).complete) fail(payloadError("body: the upload was interrupted"));
    });
    payload.on("error", () => fail(payloadError("body: the upload was interrupted")));
    payload.pipe(bb);
  });
}

async function receive(stream: BusboyFileStream, fileName: string, mime: string, o: MultipartOptions): Promise<ReceivedFile> {
  const name = (fileName ?? "").slice(0, MAX_NAME_CHARS);
  const type = (mime ?? "").slice(0, 255);
  if (o.keep) {
    try {
      const ref = await o.uploads!.put(stream, { maxBytes: o.maxBytes, mimeType: type });
      return { stored: ref, sha256: ref.sha256, size: ref.size, fileName: name, mime: type };
    } catch (err) {
      if (err instanceof UploadError && err.code === "too_large") throw tooLarge(o);
      throw err;
    }
  }
  // Withheld: counted and digested as it passes, never held.
  const sha = createHash("sha256");
  let size = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > o.maxBytes) throw tooLarge(o);
    sha.update(chunk);
  }
  return { sha256: sha.digest("hex"), size, fileName: name, mime: type };
}
