import type { ConnectRouter } from "@connectrpc/connect";
import { vastanalyzer } from "@cva/contracts";
import type { Logger } from "@cva/platform";
import type { VastAnalyzer } from "./analyzer.ts";
import type { Evaluate } from "./job-outcome.ts";
import { createVastAnalyzerService, type Slots } from "./service.ts";

// Only wiring: the behaviour lives in service.ts / analyzer.ts.
export function registerVastAnalyzerRoutes(
  router: ConnectRouter,
  analyzer: VastAnalyzer,
  slots: Slots,
  opts: { logger?: Logger; evaluate?: Evaluate } = {},
): void {
  router.service(vastanalyzer.VastAnalyzerService, createVastAnalyzerService(analyzer, slots, opts));
}
