// docker compose cannot run here (no container engine), so what it relies on is checked piece by piece: the file is
// what `docker compose config` accepts (YAML, interpolation, the Compose Specification's schema), every container is
// hardened and holds only its own credentials, the committed NATS users file is the permission table, and the NATS
// cluster configuration forms a real JetStream cluster with the machine's nats-server (Debian's 2.9).
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { jetstreamManager, RetentionPolicy, StorageType } from "@nats-io/jetstream";
import { LOCATIONS, NATS_USERS, STREAM, JOB_SUBJECTS, connectNats, deployUsersConf, isAuthorizationError, natsAnswers, natsPasswordVar, spawnNatsServer, type NatsUser } from "@cva/platform";
import { freePort } from "@cva/platform/testing/index.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { natsClusterConf } from "../scripts/lib/deploy/nats-conf.ts";
import { isServiceName } from "../scripts/lib/services.ts";
import { loadOrCreateSecrets, readSecretsFile } from "../scripts/lib/secrets.ts";
import { composeSchemaErrors, envOf, interpolateTree, readCompose, type Compose, type ComposeService } from "./harness/compose.ts";
import { envOfStage, readDockerfile } from "./harness/dockerfile.ts";
import { repoRoot } from "./harness/stack.ts";

const read = (f: string) => readFileSync(join(repoRoot, f), "utf8");
const NATS_NODES = ["nats-1", "nats-2", "nats-3"];
// A compose service's NATS user: its name without the location (tag-scanner-usa runs as tag-scanner).
const userOf = (service: string): NatsUser => service.replace(new RegExp(`-(${LOCATIONS.join("|")})$`), "") as NatsUser;

let dir: string;
let secretsEnv: Record<string, string>;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "cva-deploy-"));
  loadOrCreateSecrets(join(dir, "secrets.env"), {});
  secretsEnv = readSecretsFile(join(dir, "secrets.env"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("deploy/ NATS users", () => {
  it("deploy/nats-users.conf is the permission table (regenerate: npm run -s secrets -- --deploy-conf)", () => {
    expect(read("deploy/nats-users.conf")).toBe(deployUsersConf());
    expect(read("deploy/nats.conf")).toMatch(/^include \.\/nats-users\.conf$/m);
    expect(read("deploy/nats.conf")).not.toMatch(/^http:/m);
  });

  it("generates secrets (0600) that nats-server accepts from its environment; anonymous and wrong users are refused", async () => {
    const file = join(dir, "secrets.env");
    const { secrets } = loadOrCreateSecrets(file, {});
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(loadOrCreateSecrets(file, {}).created).toEqual([]);
    expect(Object.keys(secretsEnv)).toEqual(expect.arrayContaining(["CVA_SERVICE_SECRET_SHA256", "CVA_ADMIN_SECRET_SHA256"]));

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
});

describe("docker-compose.yml", () => {
  const raw = () => readCompose(repoRoot) as Compose;
  const model = () => interpolateTree(raw(), secretsEnv) as Compose;
  const apps = () => Object.entries(model().services).filter(([n]) => !NATS_NODES.includes(n));

  it("is a valid Compose file once interpolated with what `npm run secrets` writes (the Compose Specification's schema)", () => {
    expect(composeSchemaErrors(repoRoot, model())).toEqual([]);
    // Every variable compose requires is one `npm run secrets` writes; without them compose refuses to start.
    for (const [, v] of read("docker-compose.yml").matchAll(/\$\{([A-Z0-9_]+):\?/g)) expect(secretsEnv[v!], v).toBeDefined();
    expect(() => interpolateTree(raw(), {})).toThrow(/run npm run secrets/);
  });

  it("runs a three-node NATS cluster, one tag scanner per location, and every other process once", () => {
    const services = model().services;
    expect(Object.keys(services).sort()).toEqual(
      [...NATS_NODES, "auth", "edge", "media-prober", "report-store", ...LOCATIONS.map((l) => `tag-scanner-${l}`), "vast-analyzer", "zip-analyzer"].sort(),
    );
    expect(LOCATIONS.map((l) => envOf(services[`tag-scanner-${l}`]!).SERVER_LOCATION)).toEqual([...LOCATIONS]);
    for (const node of NATS_NODES) {
      const s = services[node]!;
      expect(envOf(s).NATS_SERVER_NAME).toBe(node);
      expect(s.volumes).toEqual(expect.arrayContaining(["./deploy/nats-cluster.conf:/etc/nats/nats.conf:ro", "./deploy/nats-users.conf:/etc/nats/nats-users.conf:ro"]));
      expect(s.image, "the NATS image is pinned to an exact version").toMatch(/^nats:\d+\.\d+\.\d+-/);
    }
    for (const [name, s] of apps()) {
      expect(envOf(s).NATS_URL.split(",").sort(), name).toEqual(NATS_NODES.map((n) => `nats://${n}:4222`));
      for (const dep of Object.keys(s.depends_on ?? {})) expect(services[dep]?.healthcheck, `${name} waits for ${dep}'s health`).toBeDefined();
    }
  });

  it("hardens every container: init, read-only root with explicit writable mounts, no capabilities, limits, a health check", () => {
    for (const [name, s] of Object.entries(model().services)) {
      expect(s.init, name).toBe(true);
      expect(s.read_only, name).toBe(true);
      expect(s.cap_drop, name).toEqual(["ALL"]);
      expect(s.cap_add, name).toBeUndefined();
      expect(s.privileged, name).toBeUndefined();
      expect(s.security_opt, name).toContain("no-new-privileges:true");
      expect(s.pids_limit, name).toBeGreaterThan(0);
      expect(s.mem_limit, name).toMatch(/^\d+[mg]$/);
      expect(s.healthcheck?.test?.length, name).toBeGreaterThan(0);
      expect(s.tmpfs, name).toEqual([expect.stringMatching(/^\/tmp:size=\d+m,mode=1777$/)]);
    }
    for (const l of LOCATIONS) {
      const s = model().services[`tag-scanner-${l}`]!;
      const profile = (s.security_opt as string[]).find((o) => o.startsWith("seccomp="))!.slice("seccomp=".length);
      expect(existsSync(join(repoRoot, profile)), profile).toBe(true);
    }
  });

  it("builds existing Dockerfile targets, and each container knows which process it runs", () => {
    const df = readDockerfile(repoRoot);
    for (const [name, s] of apps()) {
      const target = s.build?.target as string;
      expect(df.stages.map((st) => st.name), name).toContain(target);
      const runs = envOf(s).CVA_SERVICE ?? envOfStage(df, target).CVA_SERVICE;
      expect(isServiceName(runs), `${name}: CVA_SERVICE ${runs}`).toBe(true);
      expect(runs, name).toBe(userOf(name));
    }
  });

  it("gives each container only its own credentials and publishes only the edge", () => {
    // Before interpolation: which secrets each service names.
    for (const [name, s] of Object.entries(raw().services)) {
      expect(s.ports === undefined, `${name} publishes ports`).toBe(name !== "edge");
      const env = envOf(s);
      const text = JSON.stringify(env);
      if (NATS_NODES.includes(name)) {
        expect(new Set([...text.matchAll(/\$\{(NATS_PASSWORD_[A-Z_]+)/g)].map((m) => m[1])), name).toEqual(new Set(NATS_USERS.map(natsPasswordVar)));
        continue;
      }
      expect(env.NATS_USER, name).toBe(userOf(name));
      expect(new Set([...text.matchAll(/\$\{(NATS_PASSWORD_[A-Z_]+)/g)].map((m) => m[1])), name).toEqual(new Set([natsPasswordVar(userOf(name))]));
      expect("CVA_SERVICE_SECRET" in env, `${name} holds the service secret`).toBe(name === "edge");
      expect("CVA_ADMIN_SECRET_SHA256" in env, `${name} checks the admin credential`).toBe(name === "auth");
      expect(env.BIND_HOST, name).toBe("0.0.0.0");
    }
    expect(read("docker-compose.yml")).not.toMatch(/CVA_ADMIN_SECRET:/);
  });

  it("keeps internal traffic on internal networks; only scanners that fetch, and the edge, have a way out", () => {
    const m = model();
    const internal = new Set(Object.entries(m.networks ?? {}).filter(([, n]) => n?.internal).map(([k]) => k));
    expect([...internal].sort()).toEqual(["queue", "routes", "rpc"]);
    const outside = (s: ComposeService) => (s.networks as string[]).filter((n) => !internal.has(n));
    for (const [name, s] of Object.entries(m.services)) {
      for (const n of s.networks as string[]) expect(m.networks, `${name}: network ${n}`).toHaveProperty(n);
      const expected = name === "edge" ? ["public"] : ["tag-scanner", "vast-analyzer", "media-prober"].includes(userOf(name)) ? ["egress"] : [];
      expect(outside(s), name).toEqual(expected);
    }
    expect(m.services["auth"]!.networks).toContain("rpc");
    expect(m.services["tag-scanner-usa"]!.networks).not.toContain("rpc");
  });
});

describe("the NATS cluster configuration", () => {
  const procs: ChildProcess[] = [];
  afterAll(() => procs.forEach((p) => p.kill("SIGKILL")));

  it("forms a three-node JetStream cluster with nats-server 2.9 whose users work on every node and which holds an R3 stream", async () => {
    const client = [await freePort(), await freePort(), await freePort()];
    const route = [await freePort(), await freePort(), await freePort()];
    const monitor = [await freePort(), await freePort(), await freePort()];
    const passwords = Object.fromEntries(NATS_USERS.map((u) => [natsPasswordVar(u), secretsEnv[natsPasswordVar(u)]!]));
    writeFileSync(join(dir, "nats-users.conf"), read("deploy/nats-users.conf"));
    for (let i = 0; i < 3; i++) {
      const conf = join(dir, `nats-${i}.conf`);
      // The template of deploy/nats-cluster.conf and deploy/k8s/nats.conf, on loopback ports.
      writeFileSync(
        conf,
        natsClusterConf({
          header: ["test"],
          listen: `127.0.0.1:${client[i]}`,
          clusterListen: `127.0.0.1:${route[i]}`,
          routes: route.map((p) => `nats-route://127.0.0.1:${p}`),
          http: `127.0.0.1:${monitor[i]}`,
          storeDir: join(dir, `data-${i}`),
          routesNote: "test",
          httpNote: "test",
        }),
      );
      procs.push(spawn("nats-server", ["-c", conf], { stdio: "ignore", env: { ...process.env, ...passwords, NATS_SERVER_NAME: `nats-${i}` } }));
    }
    const urls = client.map((p) => `nats://127.0.0.1:${p}`);
    for (const u of urls) await expect.poll(() => natsAnswers(u, 500), { timeout: 20_000, interval: 250 }).toBe(true);
    // The health check compose runs against each node.
    for (const p of monitor) {
      await expect.poll(() => fetch(`http://127.0.0.1:${p}/healthz?js-enabled-only=true`).then((r) => r.status, () => 0), { timeout: 20_000 }).toBe(200);
    }
    for (const [i, u] of urls.entries()) {
      const user = NATS_USERS[i % NATS_USERS.length]!;
      const nc = await connectNats(u, "cluster-check", { auth: { user, password: passwords[natsPasswordVar(user)]! } });
      await nc.close();
    }
    const nc = await connectNats(urls.join(","), "cluster-check", { auth: { user: "edge", password: passwords[natsPasswordVar("edge")]! } });
    try {
      // Until the meta group has a leader, JetStream requests time out or answer an error (longer on a busy machine):
      // retry both getting the manager and creating the stream.
      let jsm: Awaited<ReturnType<typeof jetstreamManager>> | undefined;
      await expect.poll(async () => (jsm ??= await jetstreamManager(nc, { timeout: 2_000 }).catch(() => undefined)) !== undefined, { timeout: 45_000, interval: 500 }).toBe(true);
      const m = jsm!;
      await expect
        .poll(
          () =>
            m.streams
              .add({ name: STREAM, subjects: [JOB_SUBJECTS], retention: RetentionPolicy.Workqueue, storage: StorageType.File, num_replicas: 3 })
              .then(() => true, () => false),
          { timeout: 45_000, interval: 500 },
        )
        .toBe(true);
      const info = await m.streams.info(STREAM);
      expect(info.config.num_replicas).toBe(3);
      expect(info.cluster?.name).toBe("cva");
      expect(info.cluster?.replicas?.length).toBe(2);
    } finally {
      await nc.close();
    }
  });
});
