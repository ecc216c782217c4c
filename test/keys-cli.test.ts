import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { createAuthStore, type AuthStore } from "@cva/auth";
import { connectNats, type NatsConnection } from "@cva/platform";
import { startNatsServer } from "@cva/platform/testing/index.ts";
import { build, stop } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const source = join(root, "scripts", "keys.ts");

// The CLI runs 22 times here. Through tsx each start costs over 3× the CPU of a plain `node` start of the same code
// bundled (`--help`: 1.5–1.8 s against 0.4–0.6 s, measured 2026-11-27 on the loaded 2-core machine), so the sources are bundled once, now (esbuild, under a
// second), and run with plain node: the code under test is always the current sources, never a stale dist/. As in
// `npm run build`, our workspaces are bundled and third-party packages stay external, resolved from node_modules
// (the bundle sits under the repository's .tmp/); keys.ts keeps its own import.meta.url, so it finds the project
// root as it does from source. CVA_TEST_SOURCES=1 runs the sources through tsx instead, as for the e2e stacks.
let cli: { dir: string; argv: string[] } | undefined;

async function bundleCli(): Promise<{ dir: string; argv: string[] }> {
  mkdirSync(join(root, ".tmp"), { recursive: true });
  const dir = mkdtempSync(join(root, ".tmp", "keys-cli-"));
  const outfile = join(dir, "keys.mjs");
  await build({
    absWorkingDir: root, entryPoints: [source], outfile, bundle: true, platform: "node", format: "esm", target: "node20.18", logLevel: "warning",
    plugins: [{
      name: "cli-bundle",
      setup(b) {
        b.onResolve({ filter: /^[^./]/ }, (a) => (a.path.startsWith("@cva/") ? undefined : { path: a.path, external: true }));
        b.onLoad({ filter: /[\\/]scripts[\\/]keys\.ts$/ }, (a) => ({
          contents: readFileSync(a.path, "utf8").replaceAll("import.meta.url", JSON.stringify(pathToFileURL(a.path).href)), loader: "ts",
        }));
      },
    }],
  });
  await stop(); // esbuild's service process, which would otherwise outlive the file
  return { dir, argv: [outfile] };
}

let nats: Awaited<ReturnType<typeof startNatsServer>>;
let nc: NatsConnection;
let store: AuthStore;

// NATS as deployed (per-service users); the CLI runs as `admin`, the test's own store as `auth`.
beforeAll(async () => {
  nats = await startNatsServer({ users: true });
  nc = await connectNats(nats.url, "keys-cli-test", { auth: nats.authFor("auth") });
  store = await createAuthStore(nc);
  cli = process.env.CVA_TEST_SOURCES ? { dir: "", argv: ["--import", "tsx", source] } : await bundleCli();
});

afterAll(async () => {
  await nc?.close();
  await nats?.stop();
  if (cli?.dir) rmSync(cli.dir, { recursive: true, force: true });
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

// The CLI as a separate process, pointed at the test's NATS (so it never touches the project's .data/).
function keys(args: string[], viaNpm = false, as: Record<string, string> = { NATS_USER: "admin", NATS_PASSWORD: nats.passwords!.admin }): Promise<Run> {
  const [cmd, argv] = viaNpm
    ? ["npm", ["run", "-s", "keys", "--", ...args]]
    : [process.execPath, [...cli!.argv, ...args]];
  return new Promise((resolve) => {
    execFile(cmd, argv, { cwd: root, env: { ...process.env, NATS_URL: nats.url, ...as } }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === "number" ? err.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

const lastLine = (s: string) => s.trimEnd().split("\n").at(-1)!;

describe("keys CLI", { timeout: 180_000 }, () => {
  it("create prints the key alone on the last line of stdout (through npm run -s keys)", async () => {
    const r = await keys(["create", "--customer", "cli-acme", "--quota", "25"], true);
    expect(r.code).toBe(0);
    const key = lastLine(r.stdout);
    expect(key).toMatch(/^cva_[A-Za-z0-9_-]{43}$/);
    expect(await store.authenticate(key)).toMatchObject({ customerId: "cli-acme" });
    expect(await store.getCustomer("cli-acme")).toMatchObject({ monthlyQuota: 25 });
  });

  it("list shows key ids, customer, quota, used and revocation, never the key", async () => {
    const created = await keys(["create", "--customer", "cli-list"]);
    expect(created.code).toBe(0);
    const key = lastLine(created.stdout);
    const who = await store.authenticate(key);
    await store.reserve("cli-list", "job-1");

    const all = await keys(["list"]);
    expect(all.code).toBe(0);
    expect(all.stdout).toContain(who!.keyId);
    expect(all.stdout).not.toContain(key);
    expect(all.stdout).not.toContain(key.slice(4));

    const one = await keys(["list", "--customer", "cli-list"]);
    const row = one.stdout.split("\n").find((l) => l.includes(who!.keyId))!;
    expect(row).toMatch(/cli-list\s+\S+ \S+\s+no\s+10000\s+1 \(\d{4}-\d{2}\)/);
    expect(one.stdout).not.toContain("cli-acme");
  });

  it("revoke by key id and by key; revoked keys stop authenticating", async () => {
    const a = lastLine((await keys(["create", "--customer", "cli-rev"])).stdout);
    const b = lastLine((await keys(["create", "--customer", "cli-rev"])).stdout);
    const aId = (await store.authenticate(a))!.keyId;

    const byId = await keys(["revoke", aId]);
    expect(byId.code).toBe(0);
    expect(byId.stdout).toContain(aId);
    expect(await store.authenticate(a)).toBeUndefined();
    expect(await store.authenticate(b)).toBeDefined();

    expect((await keys(["revoke", b])).code).toBe(0);
    expect(await store.authenticate(b)).toBeUndefined();

    const list = await keys(["list", "--customer", "cli-rev"]);
    expect(list.stdout.split("\n").filter((l) => /\byes\b/.test(l))).toHaveLength(2);

    const missing = await keys(["revoke", "key_000000000000"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/no such key/);
  });

  it("set-quota changes the customer's quota", async () => {
    await keys(["create", "--customer", "cli-q"]);
    const r = await keys(["set-quota", "--customer", "cli-q", "--quota", "3"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/quota 3 scans/);
    expect(await store.getCustomer("cli-q")).toMatchObject({ monthlyQuota: 3 });
    const unknown = await keys(["set-quota", "--customer", "cli-nobody", "--quota", "3"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/no customer/);
  });

  // Each case is a separate Node process: allow for a loaded machine.
  it("explains bad usage with exit code 2, and prints help", { timeout: 180_000 }, async () => {
    const cases = [[], ["frobnicate"], ["create"], ["create", "--customer", "x", "--quota", "abc"], ["set-quota", "--customer", "x"], ["list", "--bogus"]];
    const runs = await Promise.all(cases.map((args) => keys(args)));
    for (const [i, r] of runs.entries()) {
      expect(r.code, cases[i]!.join(" ")).toBe(2);
      expect(r.stderr).toMatch(/^keys: /);
      expect(r.stderr).toContain("Usage:");
      expect(r.stdout).toBe("");
    }
    const help = await keys(["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("set-quota --customer <id> --quota <n>");
  });

  // Hostile: the keys CLI without the admin's NATS credentials. Answers: a wrong password → exit 1 "refused the
  // credentials"; another service's user (the tag scanner's) → exit 1, permission violation on the key buckets; no
  // key is created either way, and the CLI works again with the admin's credentials.
  it("refuses to manage keys without the admin's NATS credentials", async () => {
    const wrong = await keys(["create", "--customer", "cli-intruder"], false, { NATS_USER: "admin", NATS_PASSWORD: "wrong-password-long-enough" });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/refused the credentials of user "admin"/);
    const scanner = await keys(["create", "--customer", "cli-intruder"], false, { NATS_USER: "tag-scanner", NATS_PASSWORD: nats.passwords!["tag-scanner"] });
    expect(scanner.code).toBe(1);
    expect(scanner.stderr).toMatch(/Permissions Violation/);
    expect(scanner.stdout).not.toMatch(/cva_/);
    expect(await store.getCustomer("cli-intruder")).toBeUndefined();
    expect((await keys(["list"])).code).toBe(0);
  });
});
