export { createVastAnalyzer, type VastAnalyzer, type VastAnalyzerDeps } from "./analyzer.ts";
export { VastInputError } from "./errors.ts";
export { DEFAULT_LIMITS, type VastLimits } from "./limits.ts";
export { PLAYER_ORIGIN, VAST_USER_AGENT } from "./fetch-document.ts";
export { DEFAULT_TRACKER_CHECKS, type TrackerCheckOptions } from "./trackers.ts";
