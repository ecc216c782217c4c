import http from "node:http";
import type { AddressInfo } from "node:net";
import { collectDefaultMetrics, Counter, Histogram, Registry } from "prom-client";
import type { Interceptor } from "@connectrpc/connect";
import { ConnectError } from "@connectrpc/connect";
import { DEFAULT_BIND_HOST } from "./bind.ts";

// One registry per process, so every service exposes the same RPC metric names plus its own.
export const metricsRegistry = new Registry();
collectDefaultMetrics({ register: metricsRegistry });

const rpcDuration = new Histogram({
  name: "cva_rpc_duration_seconds",
  help: "Duration of served RPCs",
  labelNames: ["service", "method", "code"],
  buckets: [0.005, 0.02, 0.1, 0.5, 1, 2, 5, 10, 30, 60],
  registers: [metricsRegistry],
});

export const scanJobsCounter = new Counter({
  name: "cva_scan_jobs_total",
  help: "Scan jobs handled by this worker, by kind and outcome",
  labelNames: ["kind", "outcome"],
  registers: [metricsRegistry],
});

export const rpcMetricsInterceptor: Interceptor = (next) => async (req) => {
  const end = rpcDuration.startTimer({ service: req.service.typeName, method: req.method.name });
  try {
    const res = await next(req);
    end({ code: "ok" });
    return res;
  } catch (err) {
    end({ code: ConnectError.from(err).code.toString() });
    throw err;
  }
};

// Prometheus scrapes over HTTP/1.1, which the h2c gRPC listener cannot speak, hence a small second listener. It
// carries no credential check, so it binds to loopback unless the caller says otherwise (BIND_HOST).
export async function startMetricsServer(port: number, host = DEFAULT_BIND_HOST): Promise<{ port: number; close(): Promise<void> }> {
  const srv = http.createServer(async (req, res) => {
    if (req.url === "/metrics") {
      res.writeHead(200, { "content-type": metricsRegistry.contentType });
      res.end(await metricsRegistry.metrics());
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => srv.listen(port, host, resolve));
  return {
    port: (srv.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => srv.close(() => resolve())),
  };
}
