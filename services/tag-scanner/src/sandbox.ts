import { execFileSync } from "node:child_process";
import { chmodSync, chownSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

/**
 * How Chromium is started so that its own sandbox is on while it runs untrusted JavaScript.
 *
 * Chromium refuses its sandbox as root. As root (a dev machine, CI) the browser is started through a small wrapper
 * that drops to an unprivileged user (TAG_SCANNER_CHROMIUM_USER, default `nobody`) with setpriv before exec'ing
 * Chromium, which then uses its user-namespace sandbox. As any other user (the production image runs as one) it is
 * started directly, sandbox on. Either way the kernel must allow unprivileged user namespaces (or the setuid
 * chrome-sandbox helper must be installed); where it cannot, TAG_SCANNER_NO_SANDBOX=1 is the explicit, logged opt-out
 * — there is no silent fallback.
 */
export interface SandboxPlan {
  /** What puppeteer starts. */
  executablePath: string;
  /** Extra Chromium flags (`--no-sandbox` only when opted out). */
  args: string[];
  /** The profile directory must belong to the user Chromium runs as. */
  prepareProfile(dir: string): void;
  describe: string;
}

export function sandboxPlan(chromium: string, env: NodeJS.ProcessEnv = process.env): SandboxPlan {
  if (env.TAG_SCANNER_NO_SANDBOX === "1") {
    return { executablePath: chromium, args: ["--no-sandbox"], prepareProfile() {}, describe: "sandbox off (TAG_SCANNER_NO_SANDBOX=1)" };
  }
  if (process.getuid?.() !== 0) {
    return { executablePath: chromium, args: [], prepareProfile() {}, describe: "sandboxed (namespace sandbox)" };
  }
  const user = env.TAG_SCANNER_CHROMIUM_USER || "nobody";
  const uid = Number(execFileSync("id", ["-u", user]).toString().trim());
  const gid = Number(execFileSync("id", ["-g", user]).toString().trim());
  if (!Number.isInteger(uid) || uid === 0) throw new Error(`TAG_SCANNER_CHROMIUM_USER ${user} must be an unprivileged user`);
  const dir = mkdtempSync(path.join(tmpdir(), "cva-chromium-wrapper-"));
  const wrapper = path.join(dir, "chromium");
  // HOME goes to the profile dir (Chromium writes there); setpriv keeps the CDP pipe's file descriptors.
  writeFileSync(wrapper, [
    "#!/bin/sh",
    'for a in "$@"; do case "$a" in --user-data-dir=*) HOME="${a#--user-data-dir=}";; esac; done',
    `exec setpriv --reuid=${uid} --regid=${gid} --clear-groups --inh-caps=-all --bounding-set=-all env HOME="$HOME" ${JSON.stringify(chromium)} "$@"`,
    "",
  ].join("\n"));
  chmodSync(wrapper, 0o755);
  return {
    executablePath: wrapper,
    args: [],
    prepareProfile(d) {
      chownSync(d, uid, gid);
      for (const sub of ["Default", "Default/Preferences"]) chownSync(path.join(d, sub), uid, gid);
    },
    describe: `sandboxed as ${user} (uid ${uid}, namespace sandbox)`,
  };
}
