import type { Logger } from "pino";

// Every process stops the same way on SIGINT/SIGTERM (the supervisor and container runtimes send SIGTERM): once,
// logged, its own resources closed in the order it gives, then exit — non-zero if they could not be closed.
export function exitOnSignals(logger: Logger, name: string, stop: () => Promise<unknown>): void {
  let stopping = false;
  const shutdown = async (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, `${name} stopping`);
    try {
      await stop();
    } catch (err) {
      logger.error({ err: String(err) }, `${name} did not stop cleanly`);
      process.exit(1);
    }
    process.exit(0);
  };
  process.once("SIGINT", () => void shutdown("SIGINT"));
  process.once("SIGTERM", () => void shutdown("SIGTERM"));
}
