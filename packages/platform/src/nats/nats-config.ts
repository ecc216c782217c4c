import { randomBytes } from "node:crypto";
import { NATS_USERS, natsPasswordVar, natsPermissions, type NatsUser } from "./permissions.ts";

// A password is either the value itself (npm start and tests write it into a 0600 file under .data/ or a temp dir)
// or the name of an environment variable nats-server resolves at start-up (compose: `$NATS_PASSWORD_EDGE`).
export type NatsPassword = { value: string } | { env: string };

export type NatsPasswords = Record<NatsUser, string>;

// nats-server parses an environment variable's value as a config value, not as a string: "-3ab…" or "1234…" fail
// or become numbers. Passwords therefore start with a letter and use only characters of an unquoted string.
export const NATS_PASSWORD_FORMAT = /^[A-Za-z][A-Za-z0-9_-]{15,}$/;
export const newNatsPassword = (): string => `n${randomBytes(32).toString("hex")}`;

const quote = (s: string) => JSON.stringify(s);
// One subject per line: deploy/nats-users.conf is reviewed by people.
const list = (xs: string[], indent: string) => ["[", ...xs.map((x) => `${indent}  ${quote(x)}`), `${indent}]`].join("\n");

// nats-server's `authorization` block: one user per service with publish/subscribe allow lists (anything not listed
// is denied) and no anonymous access.
export function authorizationBlock(password: (user: NatsUser) => NatsPassword): string {
  const users = NATS_USERS.map((user) => {
    const p = natsPermissions(user);
    const pw = password(user);
    const secret = "value" in pw ? quote(pw.value) : `$${pw.env}`;
    return [
      `    {`,
      `      user: ${quote(user)}`,
      `      password: ${secret}`,
      `      permissions: {`,
      `        publish: { allow: ${list(p.publish, "        ")} }`,
      `        subscribe: { allow: ${list(p.subscribe, "        ")} }`,
      `      }`,
      `    }`,
    ].join("\n");
  });
  return ["authorization {", "  users: [", users.join("\n"), "  ]", "}", ""].join("\n");
}

export const literalPasswords = (passwords: NatsPasswords) => (user: NatsUser): NatsPassword => ({ value: passwords[user] });
export const envPasswords = (user: NatsUser): NatsPassword => ({ env: natsPasswordVar(user) });

// deploy/nats-users.conf: the same users and permissions, passwords from the nats container's environment. A test
// keeps the committed file equal to this.
export function deployUsersConf(): string {
  return [
    "# Generated from packages/platform/src/nats/permissions.ts (see deploy/README.md); do not edit by hand.",
    "# Passwords come from the nats container's environment (docker-compose.yml, from .data/secrets.env).",
    authorizationBlock(envPasswords),
  ].join("\n");
}
