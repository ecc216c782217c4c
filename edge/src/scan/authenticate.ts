import { Code, ConnectError } from "@connectrpc/connect";
import { authError } from "../errors.ts";
import type { EdgeDeps } from "../ports.ts";
import { callSettings } from "./calls.ts";
import type { Principal } from "./types.ts";

/** Resolves an X-ApiKey / x-apikey value to its customer; authentication_error otherwise. */
export type Authenticate = (apiKey: string | undefined) => Promise<Principal>;

export function createAuthenticator(deps: Pick<EdgeDeps, "auth" | "config" | "logger">): Authenticate {
  const { rpcTimeoutMs, unavailable } = callSettings(deps.config);
  return async (apiKey) => {
    if (apiKey === undefined) throw authError("X-ApiKey header missing");
    const key = apiKey.trim();
    if (key === "") throw authError("X-ApiKey header empty");
    try {
      const res = await deps.auth.authenticate({ apiKey: key }, { timeoutMs: rpcTimeoutMs });
      return { customerId: res.customerId, keyId: res.keyId };
    } catch (err) {
      if (err instanceof ConnectError && (err.code === Code.Unauthenticated || err.code === Code.NotFound || err.code === Code.PermissionDenied)) {
        throw authError("X-ApiKey: unknown or revoked API key");
      }
      deps.logger.warn({ err: String(err) }, "auth service call failed");
      throw unavailable("authentication");
    }
  };
}
