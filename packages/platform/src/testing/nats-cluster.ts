import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { NatsAuth } from "../nats/auth.ts";
import { spawnNatsCluster, type NatsClusterHandle } from "../nats/cluster.ts";
import { authorizationBlock, literalPasswords, newNatsPassword, type NatsPasswords } from "../nats/nats-config.ts";
import { NATS_USERS, type NatsUser } from "../nats/permissions.ts";
import { freePort } from "./free-port.ts";

export interface TestNatsCluster extends NatsClusterHandle {
  passwords?: NatsPasswords;
  authFor(user: NatsUser): NatsAuth | undefined;
  log: string[];
}

// A real three-node JetStream cluster on loopback for a test file: free ports, temp stores, removed on stop.
// `users: true` runs it as deployed (one user per service with its permissions).
export async function startNatsCluster(opts: { users?: boolean; nodes?: number } = {}): Promise<TestNatsCluster> {
  const n = opts.nodes ?? 3;
  const dir = mkdtempSync(join(tmpdir(), "cva-nats-cluster-"));
  const clientPorts: number[] = [];
  const routePorts: number[] = [];
  for (let i = 0; i < n; i++) {
    clientPorts.push(await freePort());
    routePorts.push(await freePort());
  }
  const passwords = opts.users ? (Object.fromEntries(NATS_USERS.map((u) => [u, newNatsPassword()])) as NatsPasswords) : undefined;
  const authFor = (user: NatsUser) => (passwords ? { user, password: passwords[user] } : undefined);
  const log: string[] = [];
  const cluster = await spawnNatsCluster({
    clientPorts,
    routePorts,
    storeDir: dir,
    authorization: passwords ? authorizationBlock(literalPasswords(passwords)) : undefined,
    probeAuth: authFor("admin"),
    log: (i, chunk) => log.push(...chunk.split("\n").filter(Boolean).map((l) => `[nats-${i + 1}] ${l}`)),
  });
  return {
    ...cluster,
    passwords,
    authFor,
    log,
    async stop() {
      await cluster.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
