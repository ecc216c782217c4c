import { readSecret } from "../credentials/secret.ts";

// A process's NATS identity. The server (nats-users.ts) gives each user exactly the subjects its service uses.
export interface NatsAuth {
  user: string;
  password: string;
}

// NATS_USER + NATS_PASSWORD (or NATS_PASSWORD_FILE). Credentials in NATS_URL (nats://user:pass@host) work too and
// win, see splitUrlCredentials. Neither: connect without credentials (a server without authorization, e.g. tests).
export function natsAuthFromEnv(env: NodeJS.ProcessEnv = process.env): NatsAuth | undefined {
  const user = env.NATS_USER;
  const password = readSecret("NATS_PASSWORD", env);
  if (!user && password === undefined) return undefined;
  if (!user || password === undefined) throw new Error("NATS_USER and NATS_PASSWORD must be set together");
  return { user, password };
}

// "nats://u:p@h:4222,nats://h2:4222" → servers without credentials, plus the first credentials found.
export function splitUrlCredentials(url: string): { servers: string[]; auth?: NatsAuth } {
  let auth: NatsAuth | undefined;
  const servers = url
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s) => {
      const m = /^(?:(\w+):\/\/)?([^/@]*)@(.+)$/.exec(s);
      if (!m) return s;
      const [user, ...rest] = m[2]!.split(":");
      if (!auth && user) auth = { user: decodeURIComponent(user), password: decodeURIComponent(rest.join(":")) };
      return m[1] ? `${m[1]}://${m[3]}` : m[3]!;
    });
  return auth ? { servers, auth } : { servers };
}

// Replies (JetStream API answers, fetched jobs, KV watches) go to inboxes under the user's own prefix, so a user may
// subscribe to its own replies only and never reads another service's.
export const inboxPrefixOf = (user: string) => `_INBOX.${user}`;
