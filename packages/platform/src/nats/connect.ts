import { connect, type ConnectionOptions, type NatsConnection } from "@nats-io/transport-node";
import { inboxPrefixOf, splitUrlCredentials, type NatsAuth } from "./auth.ts";

export type { NatsConnection };

const users = new WeakMap<NatsConnection, string>();

// The NATS user a connection was made as (undefined without credentials): the dispatcher scopes its result subjects
// with it, since that user may only subscribe to its own.
export const natsUserOf = (nc: NatsConnection): string | undefined => users.get(nc);

function authOptions(url: string, auth: NatsAuth | undefined): Pick<ConnectionOptions, "servers" | "user" | "pass" | "inboxPrefix"> {
  const split = splitUrlCredentials(url);
  const who = split.auth ?? auth;
  return who ? { servers: split.servers, user: who.user, pass: who.password, inboxPrefix: inboxPrefixOf(who.user) } : { servers: split.servers };
}

// NATS_URL may list several servers (a cluster), comma-separated.
export async function connectNats(url: string, name: string, opts: { timeoutMs?: number; auth?: NatsAuth } = {}): Promise<NatsConnection> {
  const o = authOptions(url, opts.auth);
  const nc = await connect({
    ...o,
    name,
    timeout: opts.timeoutMs ?? 5000,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
  });
  if (o.user) users.set(nc, o.user);
  return nc;
}

// True when something speaking NATS answers at url within the time-out — also when it refuses us for want of
// credentials: the server is there, so nobody should start a second one on its port.
export async function natsAnswers(url: string, timeoutMs = 1500): Promise<boolean> {
  try {
    const nc = await connect({ servers: splitUrlCredentials(url).servers, timeout: timeoutMs, maxReconnectAttempts: 0, reconnect: false });
    await nc.close();
    return true;
  } catch (err) {
    return isAuthorizationError(err);
  }
}

export function isAuthorizationError(err: unknown): boolean {
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    if (e.name === "AuthorizationError" || /authorization violation/i.test(e.message)) return true;
  }
  return false;
}

// A request or publish the server refused under this user's permissions.
export function isPermissionViolation(err: unknown): boolean {
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    if (e.name === "PermissionViolationError" || /permissions violation/i.test(e.message)) return true;
  }
  return false;
}
