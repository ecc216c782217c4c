// What one replica of each process asks for, in one table that the Kubernetes manifests are rendered from and the
// README's "How to scale" quotes. Memory figures were measured on the production build (`npm start -- --production`,
// PSS of the process and its children, 2026-11-24): idle after a first scan, and peak with every slot busy; limits
// leave room for heavy creatives and media above those.
import { ScanKind } from "@cva/contracts";
import type { ServiceName } from "../services.ts";

export interface Sizing {
  cpu: { request: string; limit: string };
  memory: { request: string; limit: string };
  /** Scan slots per replica (the service's *_SLOTS variable) — only scanners have them. */
  slots?: { variable: string; value: number };
  /** Memory-backed /tmp (Chromium profiles, small scratch files). */
  tmp: string;
}

export const SIZING: Record<ServiceName, Sizing> = {
  // Validates, maps and stores JSON; waits on scans. Measured 59 MB idle.
  edge: { cpu: { request: "250m", limit: "1" }, memory: { request: "192Mi", limit: "512Mi" }, tmp: "16Mi" },
  // NATS KV lookups. Measured 35 MB idle.
  auth: { cpu: { request: "100m", limit: "500m" }, memory: { request: "96Mi", limit: "256Mi" }, tmp: "16Mi" },
  // Reports and their images pass through whole (an image is at most a few MB).
  "report-store": { cpu: { request: "100m", limit: "500m" }, memory: { request: "128Mi", limit: "512Mi" }, tmp: "16Mi" },
  // CPU-bound: Chromium renders, screencasts and measures; one slot per core. Measured 450 MB idle and 630 MB with
  // both slots rendering (process + Chromium); each renderer's JavaScript heap is capped at 512 MB.
  "tag-scanner": {
    cpu: { request: "2", limit: "2" },
    memory: { request: "1Gi", limit: "2Gi" },
    slots: { variable: "TAG_SCANNER_SLOTS", value: 2 },
    tmp: "512Mi",
  },
  // Inflates zips in memory (≤ 50 MB each) and checks minification in a worker; renders are tag jobs.
  "zip-analyzer": {
    cpu: { request: "500m", limit: "1" },
    memory: { request: "256Mi", limit: "768Mi" },
    slots: { variable: "ZIP_ANALYZER_SLOTS", value: 4 },
    tmp: "16Mi",
  },
  // Network-bound: fetches VAST documents and pixels; media files go to the media prober.
  "vast-analyzer": {
    cpu: { request: "250m", limit: "500m" },
    memory: { request: "128Mi", limit: "384Mi" },
    slots: { variable: "VAST_ANALYZER_SLOTS", value: 4 },
    tmp: "16Mi",
  },
  // CPU-bound: one ffprobe and one ffmpeg decode per slot; one slot per core. Downloads go to /scratch (disk).
  "media-prober": {
    cpu: { request: "2", limit: "2" },
    memory: { request: "512Mi", limit: "1536Mi" },
    slots: { variable: "MEDIA_PROBER_SLOTS", value: 2 },
    tmp: "64Mi",
  },
};

export const SCANNERS = [
  { name: "tag-scanner", kind: ScanKind.TAG, maxReplicas: 20 },
  { name: "zip-analyzer", kind: ScanKind.ZIP, maxReplicas: 6 },
  { name: "vast-analyzer", kind: ScanKind.VAST, maxReplicas: 6 },
  { name: "media-prober", kind: ScanKind.MEDIA, maxReplicas: 10 },
] as const satisfies ReadonlyArray<{ name: ServiceName; kind: ScanKind; maxReplicas: number }>;

/** SCAN_QUEUE_PER_SLOT's default (packages/platform/src/dispatch/settings.ts): requesters refuse beyond it. */
export const QUEUE_PER_SLOT = 2;
