// deploy/seccomp/chromium.json: the seccomp profile of the tag scanner's container, derived from Docker's default
// profile (deploy/seccomp/moby-default.json, vendored unchanged) so it stays as tight as the default everywhere but
// where Chromium's sandbox needs more.
//
// Chromium's namespace sandbox creates user, PID and network namespaces (clone/unshare with CLONE_NEW* flags) and
// chroots into an empty directory. Docker's and containerd's default profiles allow those only to containers holding
// CAP_SYS_ADMIN / CAP_SYS_CHROOT — which is why `--no-sandbox` is the usual answer. Our containers hold no capability
// at all, so the derived profile allows exactly those system calls unconditionally instead of granting any.
//
// The default profile's conditional rules (`includes`/`excludes` capabilities, architectures, kernel versions) are a
// Docker extension that containerd (Kubernetes' Localhost profiles) does not read — it would apply them
// unconditionally, allowing e.g. mount(2) to everyone. So they are resolved here for our containers (no
// capabilities; amd64 and arm64; a kernel ≥ 4.8) into plain OCI rules both runtimes read alike.

interface Rule {
  names: string[];
  action: string;
  args?: unknown[] | null;
  errnoRet?: number;
  comment?: string;
  includes?: { caps?: string[]; arches?: string[]; minKernel?: string };
  excludes?: { caps?: string[]; arches?: string[] };
}
interface Profile {
  defaultAction: string;
  defaultErrnoRet?: number;
  archMap?: Array<{ architecture: string; subArchitectures: string[] }>;
  architectures?: string[];
  syscalls: Rule[];
}

const OUR_ARCHES = ["amd64", "x86", "x32", "arm64", "arm"];
const SECCOMP_ARCHES = ["SCMP_ARCH_X86_64", "SCMP_ARCH_X86", "SCMP_ARCH_X32", "SCMP_ARCH_AARCH64", "SCMP_ARCH_ARM"];
// setns: the browser's wrapper joins the network namespace the scanner made for it (tag-scanner netns.ts), which needs
// no capability outside the user namespace that owns it.
export const CHROMIUM_SANDBOX_SYSCALLS = ["clone", "unshare", "chroot", "setns"];

export function chromiumProfile(upstream: Profile): Profile {
  const syscalls: Rule[] = [];
  for (const rule of upstream.syscalls) {
    // Rules granted with a capability: our containers have none.
    if (rule.includes?.caps?.length) continue;
    if (rule.includes?.arches && !rule.includes.arches.some((a) => OUR_ARCHES.includes(a))) continue;
    if (rule.excludes?.arches && OUR_ARCHES.every((a) => rule.excludes!.arches!.includes(a))) continue;
    const { includes: _i, excludes: _e, ...plain } = rule;
    syscalls.push(plain);
  }
  syscalls.push({
    names: CHROMIUM_SANDBOX_SYSCALLS,
    action: "SCMP_ACT_ALLOW",
    comment: "Chromium's namespace sandbox: user/PID/network namespaces and a chroot, and joining the browser's network namespace, without CAP_SYS_ADMIN or CAP_SYS_CHROOT",
  });
  return {
    defaultAction: upstream.defaultAction,
    ...(upstream.defaultErrnoRet !== undefined ? { defaultErrnoRet: upstream.defaultErrnoRet } : {}),
    architectures: SECCOMP_ARCHES,
    syscalls,
  };
}

export const renderProfile = (p: Profile): string => JSON.stringify(p, null, 2) + "\n";
