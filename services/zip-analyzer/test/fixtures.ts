import { create } from "@bufbuild/protobuf";
import {
  NetworkResponseSchema, NetworkSchema, ScanJobSchema, ScanKind, TagReportSchema, type Bundle, type ScanJob, type TagReport,
} from "@cva/contracts";
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { buildZip, type ZipEntrySpec } from "./zip-writer.ts";

export const ORIGIN = "https://creative.cva.invalid";

export function zipJob(data: Buffer, jobId = "job-1"): ScanJob {
  return create(ScanJobSchema, { jobId, kind: ScanKind.ZIP, apiVersion: "v2", input: { case: "zip", value: { data } } });
}

/** A render stand-in: records the bundle and answers with the given network requests (the document first). */
export function fakeRender(extraUrls: string[] = []) {
  const calls: Bundle[] = [];
  const render = async (bundle: Bundle): Promise<TagReport> => {
    calls.push(bundle);
    const urls = [`${ORIGIN}/${bundle.entry}`, ...extraUrls];
    return create(TagReportSchema, {
      creativeRendered: true,
      network: create(NetworkSchema, {
        responses: urls.map((url, i) => create(NetworkResponseSchema, { url, resourceType: i === 0 ? "document" : "script", status: 200 })),
      }),
    });
  };
  return { render, calls };
}

/** A corpus folder zipped "with its contents at the zip root", as corpus/README §2 says. */
export function zipFolder(dir: string, prefix = ""): Buffer {
  const entries: ZipEntrySpec[] = [];
  const walk = (rel: string): void => {
    for (const name of readdirSync(path.join(dir, rel)).sort()) {
      const relPath = rel ? `${rel}/${name}` : name;
      if (statSync(path.join(dir, relPath)).isDirectory()) walk(relPath);
      else entries.push({ name: prefix + relPath, data: readFileSync(path.join(dir, relPath)) });
    }
  };
  walk("");
  return buildZip(entries);
}
