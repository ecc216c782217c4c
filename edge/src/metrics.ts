import { collectDefaultMetrics, Counter, Histogram, Registry } from "prom-client";

export interface EdgeMetrics {
  registry: Registry;
  httpRequests: Counter<"route" | "method" | "status">;
  scans: Counter<"kind" | "outcome">;
  scanDuration: Histogram<"kind">;
}

export function createEdgeMetrics(registry?: Registry): EdgeMetrics {
  const reg = registry ?? new Registry();
  // A registry handed in by the platform already carries the default process metrics.
  if (!registry) collectDefaultMetrics({ register: reg });
  const metric = <T>(name: string, make: () => T): T => (reg.getSingleMetric(name) as T | undefined) ?? make();
  return {
    registry: reg,
    httpRequests: metric("cva_edge_http_requests_total", () => new Counter({
      name: "cva_edge_http_requests_total", help: "HTTP requests served by the edge", labelNames: ["route", "method", "status"], registers: [reg],
    })),
    scans: metric("cva_edge_scans_total", () => new Counter({
      name: "cva_edge_scans_total", help: "Scans by report kind and outcome (ok or error_type)", labelNames: ["kind", "outcome"], registers: [reg],
    })),
    scanDuration: metric("cva_edge_scan_duration_seconds", () => new Histogram({
      name: "cva_edge_scan_duration_seconds", help: "Scan duration seen by the edge (reservation to stored report)",
      labelNames: ["kind"], buckets: [0.5, 1, 2, 5, 10, 20, 30, 60, 120], registers: [reg],
    })),
  };
}
