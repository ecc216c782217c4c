import type { ConnectRouter } from "@connectrpc/connect";
import { auth } from "@cva/contracts";
import type { AuthStore } from "./store.ts";
import { createAuthService } from "./service.ts";

// Only wiring: the service's behaviour lives in service.ts / store.ts.
export function registerAuthRoutes(router: ConnectRouter, store: AuthStore): void {
  router.service(auth.AuthService, createAuthService(store));
}
