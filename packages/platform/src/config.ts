import { parseServerLocations } from "./nats/locations.ts";
import { natsAuthFromEnv, type NatsAuth } from "./nats/auth.ts";

// Small typed readers for environment configuration. Each service documents its own variables in the README;
// these helpers only make bad values fail loudly at start-up instead of misbehaving later.
export function envString(name: string, fallback: string, env: NodeJS.ProcessEnv = process.env): string {
  const v = env[name];
  return v === undefined || v === "" ? fallback : v;
}

export function envInt(name: string, fallback: number, env: NodeJS.ProcessEnv = process.env): number {
  const v = env[name];
  if (v === undefined || v === "") return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer (got ${JSON.stringify(v)})`);
  return n;
}

export interface CommonConfig {
  natsUrl: string;
  // NATS_USER / NATS_PASSWORD: this process's NATS identity (undefined: connect without credentials).
  natsAuth?: NatsAuth;
  // SERVER_LOCATION, checked and normalised: one location ("usa") or several ("usa,nld"). Scanners hand it to
  // startScannerProcess / startWorker as their `location`, which serves each; requesters route to the first.
  serverLocation: string;
  // The same, as a list.
  serverLocations: string[];
}

export function loadCommonConfig(env: NodeJS.ProcessEnv = process.env): CommonConfig {
  return {
    natsUrl: envString("NATS_URL", "nats://127.0.0.1:4222", env),
    natsAuth: natsAuthFromEnv(env),
    serverLocation: parseServerLocations(env.SERVER_LOCATION).join(","),
    serverLocations: parseServerLocations(env.SERVER_LOCATION),
  };
}
