export { createTagScanner, type TagScanner, type TagScannerDeps, type ScanLogger } from "./scanner.ts";
export { createBrowserPool, CHROMIUM_ARGS, type BrowserPool, type BrowserPoolOptions, type BrowserLease } from "./browser-pool.ts";
export { DEFAULT_TIMEOUTS, SYNTHETIC_ORIGIN, type ScanTimeouts } from "./config.ts";
