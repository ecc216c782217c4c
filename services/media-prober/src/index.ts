export { createMediaProber, DEFAULT_LIMITS, type MediaProber, type MediaProberDeps, type MediaProberLimits, type LoggerLike } from "./prober.ts";
