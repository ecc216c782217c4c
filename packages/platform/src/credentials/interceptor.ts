import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import { health } from "@cva/contracts";
import { matchesDigest } from "./secret.ts";
import type { ServiceCredentials } from "./service-credentials.ts";

// Internal calls carry `authorization: Bearer <secret>` (gRPC metadata; an HTTP header for Connect and gRPC-web).
export const CREDENTIAL_HEADER = "authorization";

function presented(header: string | null): string | undefined {
  const m = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  return m ? m[1] : undefined;
}

// "<package>.<Service>/<Method>", the form admin methods are listed in.
export const methodId = (service: { typeName: string }, method: { name: string }) => `${service.typeName}/${method.name}`;

export interface CredentialPolicy {
  credentials: ServiceCredentials;
  // Methods that need the admin credential instead of the service one.
  adminMethods?: Iterable<string>;
}

/**
 * The one check in front of every internal RPC. grpc.health.v1 stays open: probes (the compose healthcheck,
 * grpc_health_probe, the edge's readiness) rarely carry secrets and learn only SERVING / NOT_SERVING, on a listener
 * that is loopback-only by default. Everything else needs the service credential; admin methods need the admin one,
 * so the edge's credential cannot mint keys or change quotas. Messages say which credential, never what was wrong
 * with the one presented.
 */
export function credentialInterceptor(policy: CredentialPolicy): Interceptor {
  const admin = new Set(policy.adminMethods ?? []);
  const { serviceDigest, adminDigest } = policy.credentials;
  return (next) => async (req) => {
    if (req.service.typeName === health.Health.typeName) return next(req);
    const token = presented(req.header.get(CREDENTIAL_HEADER));
    if (admin.has(methodId(req.service, req.method))) {
      if (token !== undefined && adminDigest !== undefined && matchesDigest(token, adminDigest)) return next(req);
      if (token !== undefined && matchesDigest(token, serviceDigest)) throw new ConnectError("this method needs the admin credential", Code.PermissionDenied);
      throw new ConnectError("missing or invalid admin credential", Code.Unauthenticated);
    }
    if (token !== undefined && matchesDigest(token, serviceDigest)) return next(req);
    throw new ConnectError("missing or invalid service credential", Code.Unauthenticated);
  };
}

// The caller's side: every request of a transport built with it carries the secret.
export function withCredential(secret: string): Interceptor {
  return (next) => (req) => {
    req.header.set(CREDENTIAL_HEADER, `Bearer ${secret}`);
    return next(req);
  };
}
