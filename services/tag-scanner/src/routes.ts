import type { ConnectRouter } from "@connectrpc/connect";
import { tagscanner } from "@cva/contracts";
import type { ScanLogger, TagScanner } from "./scanner.ts";
import { createTagScannerService, type Slots } from "./service.ts";

// Only wiring: the behaviour lives in service.ts / scanner.ts.
export function registerTagScannerRoutes(router: ConnectRouter, scanner: TagScanner, slots: Slots, opts: { logger?: ScanLogger } = {}): void {
  router.service(tagscanner.TagScannerService, createTagScannerService(scanner, slots, opts));
}
