import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { NatsAuth } from "../nats/auth.ts";
import { authorizationBlock, literalPasswords, newNatsPassword, type NatsPasswords } from "../nats/nats-config.ts";
import { NATS_USERS, type NatsUser } from "../nats/permissions.ts";
import { spawnNatsServer } from "../nats/server.ts";
import { freePort } from "./free-port.ts";

export interface TestNatsServer {
  url: string;
  port: number;
  pid: number;
  // With `users: true`: the password of every service user, and its NATS_USER/NATS_PASSWORD pair.
  passwords?: NatsPasswords;
  authFor(user: NatsUser): NatsAuth | undefined;
  // Everything nats-server logged (permission violations show up here).
  log: string[];
  stop(): Promise<void>;
}

// A real nats-server with JetStream for a test file: free port, temp store, removed on stop. `users: true` runs it
// exactly as deployed — one user per service with its permissions, no anonymous access.
export async function startNatsServer(opts: { users?: boolean } = {}): Promise<TestNatsServer> {
  const dir = mkdtempSync(join(tmpdir(), "cva-nats-"));
  const port = await freePort();
  const passwords = opts.users ? (Object.fromEntries(NATS_USERS.map((u) => [u, newNatsPassword()])) as NatsPasswords) : undefined;
  const log: string[] = [];
  const srv = await spawnNatsServer({
    port,
    storeDir: dir,
    authorization: passwords ? authorizationBlock(literalPasswords(passwords)) : undefined,
    log: (chunk) => log.push(...chunk.split("\n").filter(Boolean)),
  });
  return {
    url: srv.url,
    port,
    pid: srv.process.pid!,
    passwords,
    authFor: (user) => (passwords ? { user, password: passwords[user] } : undefined),
    log,
    async stop() {
      await srv.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
