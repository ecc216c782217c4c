#!/usr/bin/env node
// Brings a fresh clone to a runnable state: Debian packages, npm dependencies, generated code.
// Runs before node_modules exists, so it uses only Node's standard library. Each step is skipped when already done,
// which keeps `npm start` / `npm test` fast on a prepared machine.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync, mkdirSync, writeFileSync, readFileSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const quiet = process.argv.includes("--quiet");
const log = (msg) => { if (!quiet) process.stderr.write(`[setup] ${msg}\n`); };

// Debian package → a binary it provides.
const APT = { chromium: "/usr/bin/chromium", ffmpeg: "/usr/bin/ffprobe", "nats-server": "nats-server", "fonts-liberation": "/usr/share/fonts/truetype/liberation",
  // `ip`, to bring up the loopback of the browser's network namespace (unshare/nsenter/setpriv come with util-linux).
  iproute2: "/usr/sbin/ip",
  // `prlimit`: media-prober runs every ffprobe/ffmpeg under OS resource limits (address space, CPU time).
  "util-linux": "/usr/bin/prlimit" };

function onPath(bin) {
  if (bin.startsWith("/")) return existsSync(bin);
  return spawnSync("sh", ["-c", `command -v ${bin}`], { stdio: "ignore" }).status === 0;
}

function run(cmd, args, opts = {}) {
  log(`$ ${cmd} ${args.join(" ")}`);
  const r = spawnSync(cmd, args, { cwd: root, stdio: quiet ? ["ignore", "ignore", "inherit"] : "inherit", ...opts });
  if (r.status !== 0) {
    process.stderr.write(`[setup] failed: ${cmd} ${args.join(" ")} (exit ${r.status})\n`);
    process.exit(r.status || 1);
  }
}

const [major, minor] = process.versions.node.split(".").map(Number);
if (major < 20 || (major === 20 && minor < 18)) {
  process.stderr.write(`[setup] Node.js >= 20.18 is required (found ${process.versions.node}).\n`);
  process.exit(1);
}

const missing = Object.entries(APT).filter(([, bin]) => !onPath(bin)).map(([pkg]) => pkg);
if (missing.length) {
  const cmd = `apt-get update && apt-get install -y --no-install-recommends ${missing.join(" ")}`;
  if (process.getuid?.() !== 0) {
    process.stderr.write(`[setup] missing Debian packages: ${missing.join(", ")}. Run as root:\n  sudo sh -c '${cmd}'\n`);
    process.exit(1);
  }
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  run("apt-get", ["update", "-qq"], { env });
  run("apt-get", ["install", "-y", "-qq", "--no-install-recommends", ...missing], { env });
}

// npm dependencies: (re)install when the lockfile changed since the last install. `npm install` rather than
// `npm ci`: with a lockfile in sync it installs exactly the locked versions, and unlike `npm ci` it tolerates
// optional per-platform packages a registry mirror does not carry (e.g. @bufbuild/buf's darwin/win32 builds, which
// then never enter the lockfile and make `npm ci` refuse it as out of sync).
const lock = join(root, "package-lock.json");
const installed = join(root, "node_modules", ".package-lock.json");
if (!existsSync(installed) || statSync(lock).mtimeMs > statSync(installed).mtimeMs) {
  run("npm", ["install", "--no-audit", "--no-fund"]);
}

// Code generation: regenerate when any .proto or buf config is newer than the last generation.
const stamp = join(root, "packages", "contracts", "src", "gen", ".stamp");
function newest(dir) {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
}
const sourcesTime = Math.max(newest(join(root, "proto")), statSync(join(root, "buf.gen.yaml")).mtimeMs, statSync(join(root, "buf.yaml")).mtimeMs);
if (!existsSync(stamp) || Number(readFileSync(stamp, "utf8")) < sourcesTime) {
  run(join(root, "node_modules", ".bin", "buf"), ["generate"]);
  mkdirSync(dirname(stamp), { recursive: true });
  writeFileSync(stamp, String(sourcesTime));
}
log("ready");
