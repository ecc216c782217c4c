import { execFileSync } from "node:child_process";
import { childEnv } from "./child-env.ts";

/**
 * Dropping root before running a program that handles hostile input (Chromium, ffmpeg, ffprobe). Under `npm start`
 * on a dev machine or CI the stack may run as root; the images run as an ordinary user, where nothing is dropped.
 * util-linux's setpriv switches the real and effective uid and gid, clears supplementary groups and every capability
 * set, then execs the program in the same process (same pid, process group, open descriptors and resource limits).
 */
export interface UnprivilegedUser {
  name: string;
  uid: number;
  gid: number;
}

export const SETPRIV = "/usr/bin/setpriv";

function idOf(user: string, flag: "-u" | "-g"): number {
  return Number(execFileSync("id", [flag, user], { env: childEnv() }).toString().trim());
}

/** Looks a user up by name (or number); refuses root and a user that does not exist. */
export function lookupUnprivilegedUser(name: string, purpose: string): UnprivilegedUser {
  let uid: number;
  let gid: number;
  try {
    uid = idOf(name, "-u");
    gid = idOf(name, "-g");
  } catch {
    throw new Error(`${purpose}: no such user ${JSON.stringify(name)}`);
  }
  if (!Number.isInteger(uid) || !Number.isInteger(gid) || uid === 0 || gid === 0) {
    throw new Error(`${purpose}: ${name} must be an unprivileged user (not uid or gid 0)`);
  }
  return { name, uid, gid };
}

/**
 * The argv prefix that runs the rest of the command line as `user` with no groups and no capabilities. `noNewPrivs`
 * also sets no_new_privs (setuid binaries cannot raise it again); Chromium's setuid-sandbox fallback needs it off.
 */
export function dropPrivilegesArgs(user: UnprivilegedUser, opts: { noNewPrivs?: boolean } = {}): string[] {
  return [
    SETPRIV, `--reuid=${user.uid}`, `--regid=${user.gid}`, "--clear-groups", "--inh-caps=-all", "--bounding-set=-all",
    ...(opts.noNewPrivs ? ["--no-new-privs"] : []), "--",
  ];
}
