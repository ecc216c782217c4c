import http2 from "node:http2";
import type { AddressInfo } from "node:net";
import type { ConnectRouter } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import type { Logger } from "pino";
import { credentialInterceptor } from "../credentials/interceptor.ts";
import type { ServiceCredentials } from "../credentials/service-credentials.ts";
import { DEFAULT_BIND_HOST } from "./bind.ts";
import { domainErrorInterceptor } from "./domain-errors.ts";
import { registerHealth } from "./health.ts";
import { rpcMetricsInterceptor, startMetricsServer } from "./metrics.ts";

export interface ServiceHostOptions {
  name: string;
  port: number;
  metricsPort: number;
  // Address of both listeners; loopback by default (BIND_HOST in main.ts).
  host?: string;
  // Required: there is no way to start an internal service without a credential check.
  credentials: ServiceCredentials;
  // "<package>.<Service>/<Method>" of RPCs that need the admin credential (AuthService's keys and quotas).
  adminMethods?: string[];
  logger: Logger;
  // Names of the proto services registered, for grpc.health.v1 (e.g. "cva.auth.v1.AuthService").
  serviceNames: string[];
  register: (router: ConnectRouter) => void;
  ready?: () => Promise<boolean>;
}

export interface ServiceHost {
  port: number;
  metricsPort: number;
  close(): Promise<void>;
}

// Every internal service is served the same way: Connect, gRPC and gRPC-web on one HTTP/2 cleartext port
// (internal callers choose their protocol), grpc.health.v1 beside it, Prometheus metrics on a second port. Every
// call passes the credential check (metrics first, so refused calls are counted); errors of the handlers are mapped
// onto Connect codes in one place (domain-errors.ts: DomainError → its code, anything unexpected logged and answered
// "<name> unavailable").
export async function startServiceHost(opts: ServiceHostOptions): Promise<ServiceHost> {
  const host = opts.host ?? DEFAULT_BIND_HOST;
  const handler = connectNodeAdapter({
    interceptors: [
      rpcMetricsInterceptor,
      credentialInterceptor({ credentials: opts.credentials, adminMethods: opts.adminMethods }),
      // Innermost (Connect applies the last interceptor first), so the metrics count the mapped codes.
      domainErrorInterceptor({ logger: opts.logger, unavailableMessage: `${opts.name.replace(/-/g, " ")} unavailable` }),
    ],
    routes(router) {
      opts.register(router);
      registerHealth(router, opts.serviceNames, opts.ready ?? (async () => true));
    },
  });
  const server = http2.createServer(handler);
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on("session", (s) => {
    sessions.add(s);
    s.once("close", () => sessions.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port, host, () => resolve());
  });
  const metrics = await startMetricsServer(opts.metricsPort, host);
  const port = (server.address() as AddressInfo).port;
  opts.logger.info({ host, port, metricsPort: metrics.port }, `${opts.name} listening`);
  return {
    port,
    metricsPort: metrics.port,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const s of sessions) s.close();
      const t = setTimeout(() => sessions.forEach((s) => s.destroy()), 2000);
      await closed;
      clearTimeout(t);
      await metrics.close();
    },
  };
}
