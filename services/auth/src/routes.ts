import type { ConnectRouter } from "@connectrpc/connect";
import type { Logger } from "@cva/platform";
import { auth } from "@cva/contracts";
import type { AuthStore } from "./store.ts";
import { createAuthService } from "./service.ts";

// Only wiring: the service's behaviour lives in service.ts / store.ts.
export function registerAuthRoutes(router: ConnectRouter, store: AuthStore, logger?: Logger): void {
  router.service(auth.AuthService, createAuthService(store, logger));
}
