import type { ConnectRouter } from "@connectrpc/connect";
import { zipanalyzer } from "@cva/contracts";
import type { DirectRunner } from "@cva/platform";
import { createZipAnalyzerService } from "./service.ts";

// Only wiring: the behaviour lives in service.ts / job.ts / analyzer.ts.
export function registerZipAnalyzerRoutes(router: ConnectRouter, direct: DirectRunner): void {
  router.service(zipanalyzer.ZipAnalyzerService, createZipAnalyzerService(direct));
}
