import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { OutboundError, safeDownload, UploadError, type OutboundPolicy, type UploadReader } from "@cva/platform";
import type { FileInput } from "@cva/contracts";

/*
 * Brings a raw-file job's file to a local path (the job's private directory, a fixed name: nothing the client sent
 * becomes part of a path or an ffmpeg argument): an upload is streamed from the uploads bucket by its reference
 * (platform artifacts/uploads.ts), a `url` is downloaded under the outbound policy as VAST media files are. Either way
 * the file is on disk, never whole in memory, and what is measured is the bytes whose SHA-256 the report gives.
 */

export interface FileSourceDeps {
  uploads?: UploadReader;
  policy: OutboundPolicy;
}

export interface FileSourceLimits {
  /** Largest file, bytes (the job's own max_bytes applies when smaller). */
  maxBytes: number;
  /** Reading an upload or downloading a URL, whole. */
  fetchTimeoutMs: number;
}

export interface LocalFile {
  path: string;
  size: number;
  sha256: string;
  /** The Content-Type a URL was served with; "" for an upload (the job's `mime` hint is the client's declaration). */
  servedMime: string;
}

export type FileSourceOutcome = { file: LocalFile } | { refused: string };

export async function fetchFile(
  input: FileInput, path: string, deps: FileSourceDeps, limits: FileSourceLimits,
  opts: { signal?: AbortSignal; timeoutMs?: number; accept?: string } = {},
): Promise<FileSourceOutcome> {
  const jobCap = Number(input.maxBytes);
  const maxBytes = jobCap > 0 && jobCap < limits.maxBytes ? jobCap : limits.maxBytes;
  const timeoutMs = Math.min(limits.fetchTimeoutMs, opts.timeoutMs ?? Infinity);
  if (timeoutMs <= 0) return { refused: "the file was not read: the scan's deadline was reached" };
  const source = input.source;
  if (source.case === "stored") {
    if (!deps.uploads) throw new Error("this worker has no uploads reader");
    try {
      const ref = { object: source.value.object, size: Number(source.value.size), sha256: source.value.sha256 };
      const read = await deps.uploads.readToFile(ref, path, { maxBytes, signal: opts.signal, timeoutMs });
      return { file: { path, size: read.size, sha256: read.sha256, servedMime: "" } };
    } catch (e) {
      if (opts.signal?.aborted) throw opts.signal.reason ?? e;
      if (e instanceof UploadError) {
        return { refused: e.code === "too_large" ? `the file is larger than the limit of ${formatBytes(maxBytes)}` : e.message };
      }
      throw e;
    }
  }
  if (source.case === "url") {
    let host = "";
    try {
      host = new URL(source.value).host;
    } catch {
      return { refused: "the file URL is not a valid absolute URL" };
    }
    try {
      const res = await safeDownload(source.value, path, {
        policy: deps.policy, maxBytes, timeoutMs, signal: opts.signal,
        headers: { accept: opts.accept ?? "video/*, audio/*;q=0.9, */*;q=0.5" },
      });
      if (res.status < 200 || res.status > 299) {
        return { refused: `the file could not be fetched: ${host} answered HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ""}` };
      }
      return { file: { path, size: res.bytes, sha256: await sha256Of(path), servedMime: res.headers["content-type"] ?? "" } };
    } catch (e) {
      if (opts.signal?.aborted) throw opts.signal.reason ?? e;
      if (e instanceof OutboundError) {
        if (e.code === "too_large") return { refused: `the file is larger than the limit of ${formatBytes(maxBytes)}` };
        // The outbound layer's messages name the host and the cause and nothing resolved (client-safe by design).
        return { refused: `the file could not be fetched: ${e.message}` };
      }
      throw e;
    }
  }
  return { refused: "the job names no file (neither an upload nor a url)" };
}

async function sha256Of(path: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

function formatBytes(n: number): string {
  const MB = 1024 * 1024;
  return n >= MB ? `${Math.round((n / MB) * 10) / 10} MB` : `${n} bytes`;
}
