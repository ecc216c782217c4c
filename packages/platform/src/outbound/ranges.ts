import { type Cidr, parseCidr } from "./ip.ts";

/**
 * How an allowlist may unlock a range:
 * - "allowlist": any allowlist entry covering the address unlocks it;
 * - "explicit": only an entry lying inside this range (so 0.0.0.0/0 or fc00::/7 never unlock cloud metadata);
 * - "never": not a unicast destination at all (0.0.0.0 even reaches the local host on Linux).
 */
export type Unlock = "allowlist" | "explicit" | "never";

export interface SpecialRange {
  range: Cidr;
  /** Completes "x is a(n) ... address". */
  label: string;
  unlock: Unlock;
}

const table: Array<[string, string, Unlock]> = [
  ["0.0.0.0/8", "\"this network\" (unspecified)", "never"],
  ["10.0.0.0/8", "private", "allowlist"],
  ["100.64.0.0/10", "shared (CGNAT)", "allowlist"],
  ["100.100.100.200/32", "cloud metadata", "explicit"],
  ["127.0.0.0/8", "loopback", "allowlist"],
  ["168.63.129.16/32", "cloud platform (metadata)", "explicit"],
  ["169.254.0.0/16", "link-local (metadata)", "explicit"],
  ["172.16.0.0/12", "private", "allowlist"],
  ["192.0.0.0/24", "IETF protocol assignment", "allowlist"],
  ["192.0.0.192/32", "cloud metadata", "explicit"],
  ["192.0.2.0/24", "documentation", "allowlist"],
  ["192.88.99.0/24", "6to4 relay (reserved)", "allowlist"],
  ["192.168.0.0/16", "private", "allowlist"],
  ["198.18.0.0/15", "benchmarking", "allowlist"],
  ["198.51.100.0/24", "documentation", "allowlist"],
  ["203.0.113.0/24", "documentation", "allowlist"],
  ["224.0.0.0/4", "multicast", "never"],
  ["240.0.0.0/4", "reserved", "allowlist"],
  ["255.255.255.255/32", "broadcast", "never"],

  ["::/128", "unspecified", "never"],
  ["::1/128", "loopback", "allowlist"],
  ["::/8", "reserved", "allowlist"],
  ["64:ff9b:1::/48", "local-use NAT64", "allowlist"],
  ["100::/64", "discard-only", "allowlist"],
  ["2001::/23", "IETF protocol assignment (e.g. Teredo)", "allowlist"],
  ["2001:db8::/32", "documentation", "allowlist"],
  ["3fff::/20", "documentation", "allowlist"],
  ["fc00::/7", "unique-local (private)", "allowlist"],
  ["fd00:ec2::254/128", "cloud metadata", "explicit"],
  ["fe80::/10", "link-local", "explicit"],
  ["fec0::/10", "site-local (deprecated)", "allowlist"],
  ["ff00::/8", "multicast", "never"],
];

export const SPECIAL_RANGES: SpecialRange[] = table.map(([c, label, unlock]) => ({ range: parseCidr(c), label, unlock }));

/** IPv6 outside 2000::/3 is not assigned as global unicast. */
export const GLOBAL_UNICAST_V6 = parseCidr("2000::/3");

/**
 * IPv6 forms that carry an IPv4 address. `local`: the host's own stack delivers to the IPv4 address (so IPv4 allowlist
 * entries apply); otherwise a translator/relay does, and only the embedded address's refusal is inherited.
 */
export const EMBEDDING_V6: Array<{ range: Cidr; name: string; shift: bigint; local: boolean }> = [
  { range: parseCidr("::ffff:0:0/96"), name: "IPv4-mapped", shift: 0n, local: true },
  { range: parseCidr("::ffff:0:0:0/96"), name: "IPv4-translated", shift: 0n, local: true },
  { range: parseCidr("64:ff9b::/96"), name: "NAT64", shift: 0n, local: false },
  { range: parseCidr("2002::/16"), name: "6to4", shift: 80n, local: false },
];
