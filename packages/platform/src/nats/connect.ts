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

// NATS_URL may list several servers (a cluster), comma-separated. The first connect tries each listed node once, so
// one node down does not stop a process from starting; once connected, the client reconnects forever to any node
// (including those the cluster announces), resubscribes and sends what it buffered meanwhile. waitOnFirstConnect is
// off on purpose: with it a wrong password or no NATS at all would hang start-up silently instead of ending the
// process with the reason (the supervisor, compose or Kubernetes start it again). A node that stops answering without
// closing its sockets (a partitioned machine) is noticed after 3 unanswered pings, 15 s, instead of the default 4 min.
export async function connectNats(url: string, name: string, opts: { timeoutMs?: number; auth?: NatsAuth } = {}): Promise<NatsConnection> {
  const o = authOptions(url, opts.auth);
  const nc = await connect({
    ...o,
    name,
    timeout: opts.timeoutMs ?? 5000,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    waitOnFirstConnect: false,
    pingInterval: 5000,
    maxPingOut: 3,
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
