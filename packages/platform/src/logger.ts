import { pino, type Logger } from "pino";

export type { Logger };

// JSON lines on stdout; the supervisor prefixes them per process. `job_id` goes on child loggers so every line about
// a scan can be found across services.
export function createLogger(service: string, level = process.env.LOG_LEVEL ?? "info"): Logger {
  return pino({ name: service, level, base: { service }, timestamp: pino.stdTimeFunctions.isoTime });
}

export function silentLogger(): Logger {
  return pino({ level: "silent" });
}
