import type { ServiceImpl } from "@connectrpc/connect";
import { tagscanner } from "@cva/contracts";
import type { DirectRunner } from "@cva/platform";

/** Direct ScanTag for internal callers; RESOURCE_EXHAUSTED when every slot is busy. */
export function createTagScannerService(direct: DirectRunner): ServiceImpl<typeof tagscanner.TagScannerService> {
  return {
    async scanTag(req, context) {
      return { report: await direct(req.job, context.signal, { report: "tag", expect: "tag" }) };
    },
  };
}
