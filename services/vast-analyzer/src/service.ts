import { create } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import { vastanalyzer } from "@cva/contracts";
import type { DirectRunner } from "@cva/platform";

/** Direct (synchronous) AnalyzeVast for internal callers; RESOURCE_EXHAUSTED when every slot is busy. */
export function createVastAnalyzerService(direct: DirectRunner): ServiceImpl<typeof vastanalyzer.VastAnalyzerService> {
  return {
    async analyzeVast(req, context) {
      return create(vastanalyzer.AnalyzeVastResponseSchema, { report: await direct(req.job, context.signal, { report: "vast", expect: "vast" }) });
    },
  };
}
