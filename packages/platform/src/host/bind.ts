import { envString } from "../config.ts";

// Internal listeners (gRPC and metrics) bind to loopback unless told otherwise: on a developer's machine nothing but
// the edge should be reachable from the network. Containers set BIND_HOST=0.0.0.0 inside their private network.
export const DEFAULT_BIND_HOST = "127.0.0.1";

export function bindHostFromEnv(env: NodeJS.ProcessEnv = process.env): string {
  return envString("BIND_HOST", DEFAULT_BIND_HOST, env);
}
