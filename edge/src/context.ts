import type { EdgeMetrics } from "./metrics.ts";
import type { EdgeDeps } from "./ports.ts";
import type { Principal } from "./scan/types.ts";
import type { EdgeUseCases } from "./use-cases.ts";
import type { SpecIdCheck } from "./validation/spec-ids.ts";

// What every route and hook of the HTTP app shares. Its own module so that routes depend on it, never on app.ts
// (which registers them): no import cycle.
export interface EdgeContext {
  deps: EdgeDeps;
  useCases: EdgeUseCases;
  metrics: EdgeMetrics;
  isKnownSpecId: SpecIdCheck;
}

declare module "fastify" {
  interface FastifyRequest {
    /** Set by the API-key hook (auth-hook.ts) on every route that needs a key. */
    principal: Principal | undefined;
  }
}
