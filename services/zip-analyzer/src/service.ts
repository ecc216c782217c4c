import { create } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import { zipanalyzer } from "@cva/contracts";
import type { DirectRunner } from "@cva/platform";

/**
 * Direct (synchronous) AnalyzeZip for internal callers; refused with RESOURCE_EXHAUSTED when every slot is busy.
 * No input check of its own: a job without a zip is the analyzer's ZipError, a payload error like any refused zip.
 */
export function createZipAnalyzerService(direct: DirectRunner): ServiceImpl<typeof zipanalyzer.ZipAnalyzerService> {
  return {
    async analyzeZip(req, context) {
      return create(zipanalyzer.AnalyzeZipResponseSchema, { report: await direct(req.job, context.signal, { report: "zip" }) });
    },
  };
}
