// docker compose cannot run here (no Docker engine), so what it relies on is checked piece by piece: the committed
// NATS users file is the permission table, nats-server accepts it with the passwords `npm run secrets` generates
// (resolved from its environment, as in the nats container), and the compose file hands each container only its own
// credentials and publishes only the edge.
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { jetstreamManager } from "@nats-io/jetstream";
import { NATS_USERS, connectNats, deployUsersConf, isAuthorizationError, natsPasswordVar, spawnNatsServer } from "@cva/platform";
import { freePort } from "@cva/platform/testing/index.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadOrCreateSecrets, readSecretsFile } from "../scripts/lib/secrets.ts";
import { repoRoot } from "./harness/stack.ts";

const read = (f: string) => readFileSync(join(repoRoot, f), "utf8");

// The services of docker-compose.yml as blocks of text (no YAML parser is installed; the file is plain block style).
function composeServices(): Map<string, string> {
  const text = read("docker-compose.yml");
  const body = text.slice(text.indexOf("\nservices:\n"), text.indexOf("\nnetworks:\n"));
  const out = new Map<string, string>();
  for (const m of body.matchAll(/^ {2}([a-z-]+):\n((?: {4}.*\n|\n)*)/gm)) out.set(m[1]!, m[2]!);
  return out;
}

describe("deploy/ and docker-compose.yml", () => {
  let dir: string;
  beforeAll(() => void (dir = mkdtempSync(join(tmpdir(), "cva-deploy-"))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("deploy/nats-users.conf is the permission table (regenerate: npm run -s secrets -- --deploy-conf)", () => {
    expect(read("deploy/nats-users.conf")).toBe(deployUsersConf());
    expect(read("deploy/nats.conf")).toMatch(/^include \.\/nats-users\.conf$/m);
    expect(read("deploy/nats.conf")).not.toMatch(/^http:/m);
  });

  it("generates secrets (0600) that nats-server accepts from its environment; anonymous and wrong users are refused", async () => {
    const file = join(dir, "secrets.env");
    const { secrets, created } = loadOrCreateSecrets(file, {});
    expect(created).toHaveLength(2 + NATS_USERS.length);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(loadOrCreateSecrets(file, {}).created).toEqual([]);
    expect(Object.keys(readSecretsFile(file))).toEqual(expect.arrayContaining(["CVA_SERVICE_SECRET_SHA256", "CVA_ADMIN_SECRET_SHA256"]));

    const port = await freePort();
    const server = await spawnNatsServer({
      port,
      storeDir: join(dir, "nats"),
      authorization: read("deploy/nats-users.conf"),
      env: Object.fromEntries(NATS_USERS.map((u) => [natsPasswordVar(u), secrets.nats[u]])),
    });
    try {
      for (const user of NATS_USERS) {
        const nc = await connectNats(server.url, "deploy-check", { auth: { user, password: secrets.nats[user] } });
        await jetstreamManager(nc); // $JS.API.INFO, allowed to every user
        await nc.close();
      }
      for (const auth of [undefined, { user: "edge", password: secrets.nats.auth }]) {
        const err = await connectNats(server.url, "deploy-check", { auth, timeoutMs: 3000 }).then((nc) => nc.close(), (e: unknown) => e);
        expect(isAuthorizationError(err)).toBe(true);
      }
    } finally {
      await server.stop();
    }
  });

  it("compose gives each container only its own credentials and publishes only the edge", () => {
    const services = composeServices();
    expect([...services.keys()].sort()).toEqual(["auth", "edge", "media-prober", "nats", "report-store", "tag-scanner", "vast-analyzer", "zip-analyzer"]);
    const generated = new Set(Object.keys(readSecretsFile(join(dir, "secrets.env"))));
    for (const [name, block] of services) {
      expect(/^ {4}ports:/m.test(block), `${name} publishes ports`).toBe(name === "edge");
      if (name === "nats") continue;
      expect(block, name).toMatch(new RegExp(`NATS_USER: ${name}\\n`));
      const passwords = [...block.matchAll(/\$\{(NATS_PASSWORD_[A-Z_]+)/g)].map((m) => m[1]);
      expect(new Set(passwords), name).toEqual(new Set([natsPasswordVar(name as (typeof NATS_USERS)[number])]));
      expect(block.includes("CVA_SERVICE_SECRET:"), `${name} holds the service secret`).toBe(name === "edge");
      expect(block.includes("CVA_ADMIN_SECRET_SHA256"), `${name} checks the admin credential`).toBe(name === "auth");
    }
    expect(read("docker-compose.yml")).not.toMatch(/CVA_ADMIN_SECRET:/);
    expect(read("docker-compose.yml")).toMatch(/BIND_HOST: 0\.0\.0\.0/);
    // Every variable compose requires is one `npm run secrets` writes.
    for (const [, v] of read("docker-compose.yml").matchAll(/\$\{([A-Z0-9_]+):\?/g)) expect(generated.has(v!), v).toBe(true);
  });
});
