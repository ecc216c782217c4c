import { chmodSync, chownSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { dropPrivilegesArgs, lookupUnprivilegedUser } from "@cva/platform";

/**
 * How Chromium is started so that its own sandbox is on while it runs untrusted JavaScript, inside a network
 * namespace whose only exit is the scan's egress proxy (netns.ts).
 *
 * Chromium refuses its sandbox as root. As root (a dev machine, CI) the browser is started through a small wrapper
 * that drops to an unprivileged user (TAG_SCANNER_CHROMIUM_USER, default `nobody`) with setpriv before exec'ing
 * Chromium, which then uses its user-namespace sandbox. As any other user (the production image runs as one) the
 * network namespace belongs to a user namespace where that user is root, so the wrapper maps it back to an ordinary
 * uid (a nested user namespace) before exec'ing Chromium, sandbox on. Either way the kernel must allow unprivileged
 * user namespaces (or the setuid chrome-sandbox helper must be installed); where it cannot, TAG_SCANNER_NO_SANDBOX=1
 * is the explicit, logged opt-out, and TAG_SCANNER_NO_NETNS=1 the one for the network namespace — there is no silent
 * fallback.
 */
export interface SandboxPlan {
  /** What puppeteer starts: a wrapper script; it reads the namespace helper's pid from NETNS_PID_ENV. */
  executablePath: string;
  /** Extra Chromium flags (`--no-sandbox` only when opted out). */
  args: string[];
  /** The profile directory must belong to the user Chromium runs as. */
  prepareProfile(dir: string): void;
  /** Whether each browser gets its own network namespace. */
  netns: boolean;
  describe: string;
}

export const NETNS_PID_ENV = "CVA_NETNS_PID";

export function sandboxPlan(chromium: string, env: NodeJS.ProcessEnv = process.env): SandboxPlan {
  const sandbox = env.TAG_SCANNER_NO_SANDBOX !== "1";
  const netns = env.TAG_SCANNER_NO_NETNS !== "1";
  const root = process.getuid?.() === 0;
  const parts: string[] = [];
  const notes: string[] = [];
  let owner: { uid: number; gid: number } | undefined;

  if (netns) {
    // Root owns the namespace directly; anyone else through the user namespace the helper made (netns.ts).
    parts.push(root ? `nsenter -n -t "$${NETNS_PID_ENV}" --` : `nsenter --preserve-credentials -U -n -t "$${NETNS_PID_ENV}" --`);
    notes.push("own network namespace (egress proxy only)");
  } else {
    notes.push("network namespace off (TAG_SCANNER_NO_NETNS=1)");
  }
  if (root && sandbox) {
    const user = lookupUnprivilegedUser(env.TAG_SCANNER_CHROMIUM_USER || "nobody", "TAG_SCANNER_CHROMIUM_USER");
    owner = { uid: user.uid, gid: user.gid };
    // setpriv keeps the CDP pipe's file descriptors. No no_new_privs here: Chromium's setuid-sandbox fallback needs
    // it off (Chromium sets it itself for its seccomp filters).
    parts.push(dropPrivilegesArgs(user).join(" "));
    notes.push(`sandboxed as ${user.name} (uid ${user.uid}, namespace sandbox)`);
  } else if (!root && netns) {
    // Inside the helper's user namespace this user is root, which Chromium's sandbox refuses: map it back.
    const uid = process.getuid?.() ?? 1000;
    const gid = process.getgid?.() ?? 1000;
    parts.push(`unshare --user --map-user=${uid} --map-group=${gid} --`);
    notes.push(sandbox ? "sandboxed (namespace sandbox)" : "sandbox off (TAG_SCANNER_NO_SANDBOX=1)");
  } else {
    notes.push(sandbox ? "sandboxed (namespace sandbox)" : "sandbox off (TAG_SCANNER_NO_SANDBOX=1)");
  }

  const dir = mkdtempSync(path.join(tmpdir(), "cva-chromium-wrapper-"));
  const wrapper = path.join(dir, "chromium");
  // HOME goes to the profile dir (Chromium writes there).
  writeFileSync(wrapper, [
    "#!/bin/sh",
    'for a in "$@"; do case "$a" in --user-data-dir=*) HOME="${a#--user-data-dir=}";; esac; done',
    `exec ${[...parts, `env HOME="$HOME"`, JSON.stringify(chromium)].join(" ")} "$@"`,
    "",
  ].join("\n"));
  chmodSync(wrapper, 0o755);
  return {
    executablePath: wrapper,
    args: sandbox ? [] : ["--no-sandbox"],
    netns,
    prepareProfile(d) {
      if (!owner) return;
      chownSync(d, owner.uid, owner.gid);
      for (const sub of ["Default", "Default/Preferences"]) chownSync(path.join(d, sub), owner.uid, owner.gid);
    },
    describe: notes.join("; "),
  };
}
