import type { ConnectRouter } from "@connectrpc/connect";
import { vastanalyzer } from "@cva/contracts";
import type { DirectRunner } from "@cva/platform";
import { createVastAnalyzerService } from "./service.ts";

// Only wiring: the behaviour lives in service.ts / job.ts / analyzer.ts.
export function registerVastAnalyzerRoutes(router: ConnectRouter, direct: DirectRunner): void {
  router.service(vastanalyzer.VastAnalyzerService, createVastAnalyzerService(direct));
}
