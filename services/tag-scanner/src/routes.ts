import type { ConnectRouter } from "@connectrpc/connect";
import { tagscanner } from "@cva/contracts";
import type { DirectRunner } from "@cva/platform";
import { createTagScannerService } from "./service.ts";

// Only wiring: the behaviour lives in service.ts / job.ts / scanner.ts.
export function registerTagScannerRoutes(router: ConnectRouter, direct: DirectRunner): void {
  router.service(tagscanner.TagScannerService, createTagScannerService(direct));
}
