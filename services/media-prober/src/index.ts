export { createMediaProber, DEFAULT_LIMITS, type MediaProber, type MediaProberDeps, type MediaProberLimits, type LoggerLike } from "./prober.ts";
export { createMediaProberService, createSlots, probeJob, type Slots } from "./service.ts";
export { registerMediaProberRoutes } from "./routes.ts";
export { startMediaProberProcess, type MediaProberProcess, type MediaProberProcessOptions } from "./server.ts";
