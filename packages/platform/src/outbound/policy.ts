import { type Cidr, type IpAddr, cidrContains, cidrWithin, formatIp, parseCidr, parseIp } from "./ip.ts";
import { EMBEDDING_V6, GLOBAL_UNICAST_V6, SPECIAL_RANGES, type SpecialRange } from "./ranges.ts";

export interface PolicyDecision {
  allowed: boolean;
  /** Names the address; fine for logs and for a client that gave the address itself. */
  reason: string;
  /** What kind of address it is ("loopback", "public", ...), without the address: safe to show for a resolved name. */
  category?: string;
}

/** Turns a host name into candidate addresses; every candidate is then checked by the policy. */
export type HostResolver = (host: string) => Promise<string[]>;

export interface OutboundPolicy {
  /**
   * Whether `ip` may be reached, and on `port` when one is given (connections always give it): 80 and 443 plus the
   * operator's list on public addresses, every port on a range the allowlist opened.
   */
  check(ip: string, port?: number): PolicyDecision;
  describe(): string;
  /**
   * Where names resolve. Absent: the system resolver. Tests map named hosts (ads.example, …) to loopback here, so
   * fixtures are reached under real-looking names (Chromium treats 127.0.0.1 as a secure origin and would hide mixed
   * content); the policy still checks the address the name maps to.
   */
  resolve?: HostResolver;
}

/** A resolver for tests: the listed names map to fixed addresses; every other name fails as an unknown host. */
export function staticHostResolver(hosts: Record<string, string | string[]>): HostResolver {
  const table = new Map(Object.entries(hosts).map(([h, a]) => [h.toLowerCase(), Array.isArray(a) ? a : [a]]));
  return async (host) => {
    const a = table.get(host.toLowerCase());
    if (!a) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" });
    return a;
  };
}

const MAPPED_V6 = parseCidr("::ffff:0:0/96");

/** An entry written as ::ffff:a.b.c.d/n means the IPv4 range, which is what is compared after unmapping. */
function normaliseEntry(c: Cidr): Cidr {
  if (c.family === 6 && c.prefix >= 96 && cidrWithin(c, MAPPED_V6)) {
    return { family: 4, base: c.base & 0xffffffffn, prefix: c.prefix - 96, text: c.text };
  }
  return c;
}

function unembed(addr: IpAddr): { effective: IpAddr; via?: string; local: boolean } {
  if (addr.family !== 6) return { effective: addr, local: true };
  for (const e of EMBEDDING_V6) {
    if (cidrContains(e.range, addr)) {
      return { effective: { family: 4, value: (addr.value >> e.shift) & 0xffffffffn }, via: e.name, local: e.local };
    }
  }
  return { effective: addr, local: true };
}

function specialRangeOf(addr: IpAddr): SpecialRange | undefined {
  let best: SpecialRange | undefined;
  for (const s of SPECIAL_RANGES) {
    if (cidrContains(s.range, addr) && (!best || s.range.prefix > best.range.prefix)) best = s;
  }
  if (!best && addr.family === 6 && !cidrContains(GLOBAL_UNICAST_V6, addr)) {
    return { range: GLOBAL_UNICAST_V6, label: "reserved (not global unicast)", unlock: "allowlist" };
  }
  return best;
}

function withArticle(label: string): string {
  return /^(IETF|unspecified|[aeio])/i.test(label) ? `an ${label}` : `a ${label}`;
}

/** The web's own ports: every creative, tracker and media file is served on them. */
export const WEB_PORTS: readonly number[] = [80, 443];

function validPort(p: number): boolean {
  return Number.isInteger(p) && p >= 1 && p <= 65535;
}

/**
 * Default: public unicast only. Allowlist entries unlock private/loopback/... ranges; link-local and cloud-metadata
 * ranges only yield to an entry lying inside them, so a broad entry cannot expose the metadata service by accident.
 *
 * Ports: a public address is reached on 80 and 443 only, plus `ports` (OUTBOUND_ALLOWED_PORTS). Anything else is a
 * cross-protocol request made from our egress addresses on a creative's behalf — HTTP spoken to someone's SMTP,
 * Redis or memcached port, whose line-based parsers take the request's lines as commands. An address that only an
 * allowlist entry made reachable (loopback, private, ...) keeps every port: the operator named that range as a
 * destination of the scanners (test fixtures on ephemeral ports, an internal ad server on :8080), and a port list
 * there would protect nothing the entry had not already opened. A public address inside a broad entry (0.0.0.0/0)
 * is still public: its ports stay limited.
 */
export function createOutboundPolicy(allowlistCidrs: string[], opts: { resolve?: HostResolver; ports?: readonly number[] } = {}): OutboundPolicy {
  const entries = allowlistCidrs
    .map((c) => c.trim())
    .filter((c) => c !== "")
    .map((c) => normaliseEntry(parseCidr(c)));
  for (const p of opts.ports ?? []) if (!validPort(p)) throw new Error(`port ${JSON.stringify(p)} is not a port number from 1 to 65535`);
  const ports = [...new Set([...WEB_PORTS, ...(opts.ports ?? [])])].sort((a, b) => a - b);
  const portList = ports.join(", ");

  function check(ipText: string, port?: number): PolicyDecision {
    const d = checkAddress(ipText);
    if (!d.allowed || port === undefined || d.category !== "public" || ports.includes(port)) return d;
    // No address in the reason: for a name it is what our resolver answered.
    return { allowed: false, reason: `port ${port} is not allowed (ports ${portList} only)`, category: "port" };
  }

  function checkAddress(ipText: string): PolicyDecision {
    const addr = parseIp(ipText);
    if (!addr) return { allowed: false, reason: `"${ipText}" is not an IP address`, category: "invalid" };
    const { effective, via, local } = unembed(addr);
    const subject = via ? `${ipText} (${via}) maps to ${formatIp(effective)}, which` : ipText;
    const special = specialRangeOf(effective);
    if (!special) return { allowed: true, reason: `${subject} is a public unicast address`, category: "public" };

    const refused: PolicyDecision = { allowed: false, reason: `${subject} is ${withArticle(special.label)} address`, category: special.label };
    if (special.unlock === "never") return refused;
    const entry = entries.find(
      (e) =>
        ((local && cidrContains(e, effective)) || cidrContains(e, addr)) &&
        (special.unlock === "allowlist" || cidrWithin(e, special.range)),
    );
    if (!entry) return refused;
    return { allowed: true, reason: `${subject} is ${withArticle(special.label)} address allowed by allowlist entry ${entry.text}`, category: special.label };
  }

  const listed = entries.map((e) => e.text).join(", ");
  return {
    check,
    ...(opts.resolve ? { resolve: opts.resolve } : {}),
    describe: () => `public unicast addresses on ports ${portList}${listed ? `, plus allowlist ${listed} on any port` : " only"}`,
  };
}

/** OUTBOUND_ALLOWED_PORTS: comma-separated port numbers, added to 80 and 443 for public addresses. */
export function parsePortList(raw: string): number[] {
  return raw
    .split(",")
    .map((p) => p.trim())
    .filter((p) => p !== "")
    .map((p) => {
      const n = /^\d{1,5}$/.test(p) ? Number(p) : NaN;
      if (!validPort(n)) throw new Error(`${JSON.stringify(p)} is not a port number from 1 to 65535`);
      return n;
    });
}

/** Reads OUTBOUND_ALLOWLIST (comma-separated CIDRs) and OUTBOUND_ALLOWED_PORTS (comma-separated ports). */
export function outboundPolicyFromEnv(env: NodeJS.ProcessEnv = process.env): OutboundPolicy {
  let ports: number[];
  try {
    ports = parsePortList(env.OUTBOUND_ALLOWED_PORTS ?? "");
  } catch (e) {
    throw new Error(`OUTBOUND_ALLOWED_PORTS: ${(e as Error).message}`);
  }
  const raw = env.OUTBOUND_ALLOWLIST ?? "";
  try {
    return createOutboundPolicy(raw.split(","), { ports });
  } catch (e) {
    throw new Error(`OUTBOUND_ALLOWLIST: ${(e as Error).message}`);
  }
}
