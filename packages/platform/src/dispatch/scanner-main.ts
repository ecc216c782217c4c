import type { NatsConnection } from "@nats-io/transport-node";
import { envInt, loadCommonConfig } from "../config.ts";
import { serviceCredentialsFromEnv } from "../credentials/service-credentials.ts";
import { bindHostFromEnv } from "../host/bind.ts";
import { exitOnSignals } from "../lifecycle.ts";
import { createLogger } from "../logger.ts";
import { connectNats } from "../nats/connect.ts";
import type { ScannerProcess, ScannerProcessBase } from "./scanner-process.ts";

export interface ScannerMainOptions {
  /** The process's name ("tag-scanner"): its logger, its NATS connection name, its "<name> ready" line. */
  name: string;
  /** The variable of its gRPC port ("TAG_SCANNER_PORT") and that port's default. */
  portEnv: string;
  defaultPort: number;
  /** Default of METRICS_PORT. */
  defaultMetricsPort: number;
  /** The service's own configuration, shown in the "ready" line (slots, limits, the outbound policy). */
  describe?: Record<string, unknown>;
  /**
   * Starts the process (the service's `start<X>Process`) from what every scanner shares: NATS, logger, locations,
   * ports, bind host, credentials. A throw is a start-up failure: logged as fatal, exit 1.
   */
  start(base: ScannerProcessBase): Promise<ScannerProcess>;
  env?: NodeJS.ProcessEnv;
}

/**
 * A scanner's main.ts minus its own configuration: every scanner process reads the same common environment
 * (NATS_URL/NATS_USER/NATS_PASSWORD, SERVER_LOCATION, the service credential, BIND_HOST, its port and METRICS_PORT),
 * connects to NATS, starts, says it is ready, and stops the same way on SIGINT/SIGTERM (the process closed, then NATS
 * drained). What varies — its limits, pool, policy — main.ts reads and hands to `start`.
 */
export async function runScannerMain(opts: ScannerMainOptions): Promise<void> {
  const env = opts.env ?? process.env;
  const logger = createLogger(opts.name);
  let nc: NatsConnection | undefined;
  let proc: ScannerProcess;
  let location: string;
  try {
    const common = loadCommonConfig(env);
    location = common.serverLocation;
    const base = {
      logger,
      location,
      port: envInt(opts.portEnv, opts.defaultPort, env),
      metricsPort: envInt("METRICS_PORT", opts.defaultMetricsPort, env),
      host: bindHostFromEnv(env),
      credentials: serviceCredentialsFromEnv(env),
    };
    nc = await connectNats(common.natsUrl, opts.name, { auth: common.natsAuth });
    proc = await opts.start({ ...base, nc });
  } catch (err) {
    logger.fatal({ err }, `${opts.name} could not start`);
    await nc?.close().catch(() => undefined);
    process.exit(1);
  }
  const connection = nc;
  logger.info({ port: proc.port, metrics_port: proc.metricsPort, location, ...opts.describe }, `${opts.name} ready`);
  exitOnSignals(logger, opts.name, async () => {
    await proc.close();
    await connection.drain();
  });
}
