import type { ConnectRouter } from "@connectrpc/connect";
import { zipanalyzer } from "@cva/contracts";
import type { ZipAnalyzer } from "./analyzer.ts";
import type { Logger } from "./logger.ts";
import { createZipAnalyzerService, type Slots } from "./service.ts";

// Only wiring: the behaviour lives in service.ts / analyzer.ts.
export function registerZipAnalyzerRoutes(router: ConnectRouter, analyzer: ZipAnalyzer, slots: Slots, logger?: Logger): void {
  router.service(zipanalyzer.ZipAnalyzerService, createZipAnalyzerService(analyzer, slots, logger));
}
