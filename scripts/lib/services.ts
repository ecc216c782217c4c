// The processes of the product as deployment sees them: the name compose, Kubernetes and CVA_SERVICE use, the source
// entry the build bundles into dist/<name>/main.js, and where its health answers. Imports nothing but node:path, so
// the container helpers can bundle it.
import { join } from "node:path";

export const SERVICE_ENTRIES = {
  edge: "edge/src/main.ts",
  auth: "services/auth/src/main.ts",
  "report-store": "services/report-store/src/main.ts",
  "tag-scanner": "services/tag-scanner/src/main.ts",
  "zip-analyzer": "services/zip-analyzer/src/main.ts",
  "vast-analyzer": "services/vast-analyzer/src/main.ts",
  "media-prober": "services/media-prober/src/main.ts",
} as const;
export type ServiceName = keyof typeof SERVICE_ENTRIES;
export const SERVICE_NAMES = Object.keys(SERVICE_ENTRIES) as ServiceName[];
export const DIST = "dist";
/** The production bundle of a process (`npm run build`). */
export const builtEntry = (root: string, name: ServiceName): string => join(root, DIST, name, "main.js");

export const isServiceName = (v: string | undefined): v is ServiceName => v !== undefined && Object.hasOwn(SERVICE_ENTRIES, v);

/**
 * Where a process's health answers: internal services serve grpc.health.v1 on their gRPC port (what Kubernetes' gRPC
 * probes call); the edge answers GET /healthz on its public port.
 */
export type HealthEndpoint = { kind: "grpc"; portVar: string; port: number } | { kind: "http"; portVar: string; port: number; path: string };

export const HEALTH: Record<ServiceName, HealthEndpoint> = {
  edge: { kind: "http", portVar: "PORT", port: 8080, path: "/healthz" },
  auth: { kind: "grpc", portVar: "AUTH_PORT", port: 9101 },
  "report-store": { kind: "grpc", portVar: "REPORT_STORE_PORT", port: 9102 },
  "tag-scanner": { kind: "grpc", portVar: "TAG_SCANNER_PORT", port: 9103 },
  "zip-analyzer": { kind: "grpc", portVar: "ZIP_ANALYZER_PORT", port: 9104 },
  "vast-analyzer": { kind: "grpc", portVar: "VAST_ANALYZER_PORT", port: 9105 },
  "media-prober": { kind: "grpc", portVar: "MEDIA_PROBER_PORT", port: 9106 },
};
