import { parseServerLocations } from "@cva/platform";
import { DEFAULT_LIMITS, type EdgeConfig } from "./ports.ts";

// Edge configuration from the environment (CONTRACT §2 and the README); bad values fail at start-up.
function int(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const v = env[name];
  if (v === undefined || v === "") return fallback;
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer (got ${JSON.stringify(v)})`);
  return n;
}
const str = (env: NodeJS.ProcessEnv, name: string, fallback: string) => (env[name] === undefined || env[name] === "" ? fallback : env[name]!);

export interface EdgeProcessConfig extends EdgeConfig {
  port: number;
  grpcPort: number;
  // The public listeners (PORT, GRPC_PORT).
  host: string;
  // Prometheus, for operators only: not on the public port, and on BIND_HOST (loopback by default).
  metricsPort: number;
  bindHost: string;
  authUrl: string;
  reportStoreUrl: string;
  natsUrl: string;
}

export function loadEdgeConfig(env: NodeJS.ProcessEnv = process.env): EdgeProcessConfig {
  const port = int(env, "PORT", 8080);
  return {
    port,
    grpcPort: int(env, "GRPC_PORT", 8081),
    host: str(env, "HOST", "0.0.0.0"),
    metricsPort: int(env, "METRICS_PORT", 9200),
    bindHost: str(env, "BIND_HOST", "127.0.0.1"),
    publicBaseUrl: str(env, "PUBLIC_BASE_URL", `http://localhost:${port}`).replace(/\/+$/, ""),
    // A list (npm start: "usa,nld") routes scans without targeting.country to its first location.
    serverLocation: parseServerLocations(env.SERVER_LOCATION)[0]!,
    authUrl: str(env, "AUTH_URL", "http://127.0.0.1:9101"),
    reportStoreUrl: str(env, "REPORT_STORE_URL", "http://127.0.0.1:9102"),
    natsUrl: str(env, "NATS_URL", "nats://127.0.0.1:4222"),
    scanTimeoutMs: int(env, "SCAN_TIMEOUT_MS", 90_000),
    rpcTimeoutMs: int(env, "RPC_TIMEOUT_MS", 5_000),
    retryAfterSeconds: int(env, "RETRY_AFTER_SECONDS", 5),
    maxInFlightPerCustomer: int(env, "CUSTOMER_MAX_IN_FLIGHT", 0),
    limits: {
      maxBodyBytes: int(env, "MAX_BODY_BYTES", DEFAULT_LIMITS.maxBodyBytes),
      maxTagBytes: int(env, "MAX_TAG_BYTES", DEFAULT_LIMITS.maxTagBytes),
      maxZipBytes: int(env, "MAX_ZIP_BYTES", DEFAULT_LIMITS.maxZipBytes),
      maxVastUrlBytes: int(env, "MAX_VAST_URL_BYTES", DEFAULT_LIMITS.maxVastUrlBytes),
      maxNameLength: int(env, "MAX_NAME_LENGTH", DEFAULT_LIMITS.maxNameLength),
      maxVideoBytes: int(env, "MAX_VIDEO_BYTES", DEFAULT_LIMITS.maxVideoBytes),
      maxImageBytes: int(env, "MAX_IMAGE_BYTES", DEFAULT_LIMITS.maxImageBytes),
      maxAudioBytes: int(env, "MAX_AUDIO_BYTES", DEFAULT_LIMITS.maxAudioBytes),
    },
  };
}
