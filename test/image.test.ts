// The production build and the image, without a container engine: the Dockerfile's shape (pinned LTS base,
// lockfile-exact installs, non-root, health check), that what the bundles import at run time is exactly what
// `npm ci --omit=dev` installs, the health-check helper against a real gRPC health service, and the built stack
// running a scan of every kind with plain node (dist/, as the image runs it).
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLogger, startServiceHost } from "@cva/platform";
import { freePort, testCredentials } from "@cva/platform/testing/index.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildAll, type BuildResult } from "../scripts/lib/build.ts";
import { SERVICE_NAMES } from "../scripts/lib/services.ts";
import { checkGrpc, healthOf, servingStatus } from "../scripts/container/healthcheck.ts";
import { readDockerfile, userOfStage } from "./harness/dockerfile.ts";
import { freshBundles } from "./harness/bundles.ts";
import { repoRoot, startStack, type TestStack } from "./harness/stack.ts";
import { builtStackCase } from "./e2e/built-stack-case.ts";

const TARGETS = ["service", "tag-scanner", "media-prober"];

describe("Dockerfile", () => {
  const df = readDockerfile(repoRoot);
  const all = df.stages.flatMap((s) => s.instructions.map((i) => ({ ...i, stage: s.name })));

  it("builds on an exact Node LTS tag, and every stage on it or on an earlier stage", () => {
    const base = df.args.get("NODE_IMAGE")!;
    const m = /^node:(\d+)\.\d+\.\d+-bookworm-slim(@sha256:[0-9a-f]{64})?$/.exec(base);
    expect(m, `NODE_IMAGE ${base}: an exact version (and optionally a digest)`).not.toBeNull();
    // Even majors become LTS; 20 reached its end of life in April 2026.
    expect(Number(m![1]) % 2).toBe(0);
    expect(Number(m![1])).toBeGreaterThanOrEqual(22);
    const seen: string[] = [];
    for (const s of df.stages) {
      expect(s.from === "${NODE_IMAGE}" || seen.includes(s.from), `stage ${s.name} FROM ${s.from}`).toBe(true);
      seen.push(s.name);
    }
    expect(df.stages.map((s) => s.name)).toEqual(expect.arrayContaining(TARGETS));
  });

  it("installs exactly the lockfile (npm ci), production packages only in what runs", () => {
    const runs = all.filter((i) => i.op === "RUN").map((i) => i.args);
    expect(runs.some((r) => /\bnpm install\b/.test(r))).toBe(false);
    expect(all.find((i) => i.op === "RUN" && /npm ci --omit=dev/.test(i.args))?.stage).toBe("runtime-deps");
    const service = df.stages.find((s) => s.name === "service")!;
    const copies = service.instructions.filter((i) => i.op === "COPY").map((i) => i.args);
    expect(copies).toContain("--from=runtime-deps /app/node_modules ./node_modules");
    expect(copies).toContain("--from=build /src/dist ./dist");
  });

  it("runs as a numeric non-root user under tini with a health check, the process named by CVA_SERVICE", () => {
    for (const t of TARGETS) expect(userOfStage(df, t), t).toMatch(/^[1-9]\d*:[1-9]\d*$/);
    const service = df.stages.find((s) => s.name === "service")!;
    const op = (o: string) => service.instructions.find((i) => i.op === o)?.args;
    expect(op("HEALTHCHECK")).toMatch(/CMD \["node", "\/app\/dist\/healthcheck\.js"\]$/);
    expect(op("ENTRYPOINT")).toBe('["/usr/bin/tini", "-s", "--"]');
    expect(op("CMD")).toBe('["node", "/app/dist/main.js"]');
  });

  it("copies only what exists and what .dockerignore lets into the build context", () => {
    const ignored = readFileSync(join(repoRoot, ".dockerignore"), "utf8").split("\n").filter((l) => l && !l.startsWith("#"));
    const isIgnored = (p: string) =>
      ignored.some((pat) => {
        const re = new RegExp(`^${pat.replace(/\*\*\//g, "(?:.*/)?").replace(/\*/g, "[^/]*")}(?:/|$)`);
        return re.test(p);
      });
    for (const i of all.filter((x) => x.op === "COPY" && !x.args.startsWith("--from"))) {
      const sources = i.args.split(/\s+/).slice(0, -1);
      for (const src of sources) {
        expect(existsSync(join(repoRoot, src)), `line ${i.line}: ${src}`).toBe(true);
        expect(isIgnored(src.replace(/\/$/, "")), `line ${i.line}: ${src} is in .dockerignore`).toBe(false);
      }
    }
    for (const must of ["node_modules", ".data", "dist", "packages/contracts/src/gen"]) expect(isIgnored(must), must).toBe(true);
  });
});

describe("npm run build", () => {
  let out: string;
  let result: BuildResult;
  beforeAll(async () => {
    out = mkdtempSync(join(tmpdir(), "cva-build-"));
    result = await buildAll(repoRoot, { outDir: out });
  });
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it("emits one bundle per process plus the container helpers, and the assets they read", () => {
    for (const n of SERVICE_NAMES) expect(existsSync(join(out, n, "main.js")), n).toBe(true);
    expect(existsSync(join(out, "main.js"))).toBe(true);
    expect(existsSync(join(out, "healthcheck.js"))).toBe(true);
    expect(result.assets.some((a) => a.endsWith("cva-filters.txt"))).toBe(true);
    // The tag scanner's page-side scripts, read as text and sent to the page (services/tag-scanner/src/gatherers/page/).
    for (const page of ["instrument.js", "layout.js", "motion.js", "mraid-host.js"]) expect(result.assets.some((a) => a.endsWith(`-${page}`)), page).toBe(true);
    // No TypeScript and no workspace import is left for run time.
    for (const n of SERVICE_NAMES) {
      const code = readFileSync(join(out, n, "main.js"), "utf8");
      expect(code, n).not.toMatch(/from ["']@cva\//);
      expect(code, n).not.toMatch(/from ["'][^"']+\.ts["']/);
    }
  });

  it("imports at run time only packages `npm ci --omit=dev` installs", () => {
    const lock = JSON.parse(readFileSync(join(repoRoot, "package-lock.json"), "utf8")).packages as Record<string, { dev?: boolean; link?: boolean }>;
    const pkgName = (spec: string) => (spec.startsWith("@") ? spec.split("/").slice(0, 2).join("/") : spec.split("/")[0]!);
    for (const [bundle, externals] of result.externals) {
      for (const spec of externals) {
        const entry = lock[`node_modules/${pkgName(spec)}`];
        expect(entry, `${bundle} imports ${spec}, which is not installed at the top level`).toBeDefined();
        expect(entry!.dev, `${bundle} imports ${spec}, a devDependency`).not.toBe(true);
      }
    }
    // puppeteer-core, fastify, … are there: the externals are real.
    expect([...result.externals.values()].flat()).toEqual(expect.arrayContaining(["puppeteer-core", "fastify"]));
  });

  it("leaves a lockfile npm ci accepts: every optional platform package of a locked package is locked too", () => {
    const lock = JSON.parse(readFileSync(join(repoRoot, "package-lock.json"), "utf8")).packages as Record<string, { optionalDependencies?: Record<string, string> }>;
    const missing: string[] = [];
    for (const [path, p] of Object.entries(lock)) {
      for (const dep of Object.keys(p.optionalDependencies ?? {})) {
        const nested = `${path}/node_modules/${dep}`;
        if (!lock[nested] && !lock[`node_modules/${dep}`]) missing.push(`${path || "(root)"} → ${dep}`);
      }
    }
    expect(missing, "npm ci refuses a lockfile without these (npm view <pkg> versions: pick a version the registry has for every platform)").toEqual([]);
  });
});

describe("the container health check (dist/healthcheck.js)", () => {
  it("reads grpc.health.v1 answers", () => {
    expect(servingStatus(Buffer.from([0, 0, 0, 0, 2, 0x08, 0x01]))).toBe(1);
    expect(servingStatus(Buffer.from([0, 0, 0, 0, 2, 0x08, 0x02]))).toBe(2);
    expect(servingStatus(Buffer.from([0, 0, 0, 0, 0]))).toBe(0);
    expect(servingStatus(Buffer.alloc(0))).toBe(-1);
  });

  it("passes a SERVING service, fails a NOT_SERVING or absent one, and checks the edge over HTTP", async () => {
    let ready = true;
    const host = await startServiceHost({
      name: "health-check-test",
      port: 0,
      metricsPort: 0,
      credentials: testCredentials,
      logger: createLogger("health-check-test", "silent"),
      serviceNames: [],
      register: () => {},
      ready: async () => ready,
    });
    try {
      expect(await checkGrpc("127.0.0.1", host.port)).toBeUndefined();
      expect(await healthOf({ CVA_SERVICE: "auth", AUTH_PORT: String(host.port), BIND_HOST: "0.0.0.0" })).toBeUndefined();
      ready = false;
      expect(await checkGrpc("127.0.0.1", host.port)).toMatch(/status 2 \(not SERVING\)/);
    } finally {
      await host.close();
    }
    expect(await checkGrpc("127.0.0.1", await freePort(), 2000)).toMatch(/refused|connect/i);
    expect(await healthOf({ CVA_SERVICE: "nope" })).toMatch(/CVA_SERVICE must be one of/);

    let status = 200;
    const edge = createServer((req, res) => res.writeHead(req.url === "/healthz" ? status : 404).end()).listen(0, "127.0.0.1");
    await new Promise((r) => edge.once("listening", r));
    const PORT = String((edge.address() as { port: number }).port);
    try {
      expect(await healthOf({ CVA_SERVICE: "edge", PORT })).toBeUndefined();
      status = 503;
      expect(await healthOf({ CVA_SERVICE: "edge", PORT })).toBe("HTTP 503");
    } finally {
      edge.close();
    }
  });
});

// The bundles as the image runs them (plain node, no tsx): built by `npm test` before vitest (npm run build). When they
// are fresh, e2e/scans.test.ts's stack runs them, and proves this there (one stack start fewer); here only otherwise.
describe.skipIf(!existsSync(join(repoRoot, "dist/edge/main.js")) || freshBundles(repoRoot))("the built stack (stale bundles; fresh ones: e2e/scans.test.ts)", () => {
  let stack: TestStack;
  let key: string;
  beforeAll(async () => {
    stack = await startStack({ built: true, waitForWorkers: ["tag", "zip", "vast", "media"] });
    key = await stack.createKey("built-stack");
  }, 120_000);
  afterAll(async () => stack?.stop());

  it("runs every process from dist/ with plain node and scans an ad tag and a zip", () => builtStackCase(stack, key), 120_000);
});
