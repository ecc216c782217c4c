export { createMediaProber, DEFAULT_LIMITS, type MediaProber, type MediaProberDeps, type MediaProberLimits, type LoggerLike } from "./prober.ts";
export { runJob } from "./job.ts";
export { createMediaProberService } from "./service.ts";
export { registerMediaProberRoutes } from "./routes.ts";
export { startMediaProberProcess, type MediaProberProcess, type MediaProberProcessOptions } from "./server.ts";
// The slot count is @cva/platform's; re-exported because this package's index has always offered it.
export { createSlots, type Slots } from "@cva/platform";
