import { toJson } from "@bufbuild/protobuf";
import { FileInfoSchema, type CreativeFile, type FileInfo, type Meta } from "@cva/contracts";
import { tagScanResultsSchema, tagScanResultsView } from "./tag-v3.ts";
import { arr, int, metaSchema, metaView, obj, str, type JsonSchema } from "./shared.ts";

// What the three raw-file views (video, image, audio) share. INTERIM (issue 19, s19-edge): these views are the minimum
// the endpoints need to answer — the documented top-level shape with the measured objects passed through as the
// protobuf's JSON form — until the views of the s19-views work replace them with explicit, fully described fields.

export const fileSchema = obj(
  {
    name: str("the client's name for the file (multipart file name, the URL's last path segment); empty when none"),
    sha256: str("SHA-256 of the bytes scanned, lowercase hex"),
    mime_type: str("what the file is, from its own bytes"),
    declared_mime_type: str("the MIME type the client declared (multipart part, or the URL's Content-Type); a hint, empty when none"),
    size: int("bytes"),
    url: str("the URL it was fetched from; empty for an upload"),
  },
  { description: "the file as received" },
);

export function fileView(f: CreativeFile | undefined) {
  return {
    name: f?.name ?? "",
    sha256: f?.sha256 ?? "",
    mime_type: f?.mimeType ?? "",
    declared_mime_type: f?.declaredMimeType ?? "",
    size: Number(f?.size ?? 0n),
    url: f?.url ?? "",
  };
}

/** Interim: the measured file_info as the protobuf's JSON (camelCase names, int64 as strings). */
export const freeObject = (description: string): JsonSchema => ({ type: "object", additionalProperties: true, description });
export const fileInfoJson = (fi: FileInfo | undefined) => (fi ? (toJson(FileInfoSchema, fi) as Record<string, unknown>) : {});

export const fileCommonSchema = {
  job_id: str(),
  name: str("copied from the request"),
  meta: metaSchema,
  scan_results: tagScanResultsSchema,
  file: fileSchema,
  not_measured: arr(str(), "paths of the fields that were not measured"),
  analysis_error: str("why part of the measurement failed although the file is of this kind; empty otherwise"),
};

export function fileCommonView(
  r: { jobId: string; name: string; meta?: Meta; scanResults?: Parameters<typeof tagScanResultsView>[0]; file?: CreativeFile; notMeasured: string[]; analysisError: string },
  creativeType: "video" | "image" | "audio",
) {
  return {
    job_id: r.jobId,
    name: r.name,
    // metaView names the tag kinds; the endpoint decides what the report is.
    meta: { ...metaView(r.meta, "vast", "v3"), creative_type: creativeType },
    scan_results: tagScanResultsView(r.scanResults),
    file: fileView(r.file),
    not_measured: [...r.notMeasured],
    analysis_error: r.analysisError,
  };
}
