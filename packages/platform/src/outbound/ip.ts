import { isIPv4, isIPv6 } from "node:net";

/** An IP address as a number, so that range checks are plain comparisons. */
export interface IpAddr {
  family: 4 | 6;
  value: bigint;
}

export interface Cidr {
  family: 4 | 6;
  /** First address of the range (host bits cleared). */
  base: bigint;
  prefix: number;
  /** As written in the configuration, for messages. */
  text: string;
}

const BITS = { 4: 32, 6: 128 } as const;

function parseV4(s: string): bigint {
  let v = 0n;
  for (const part of s.split(".")) v = (v << 8n) | BigInt(Number(part));
  return v;
}

function parseV6(s: string): bigint {
  let text = s;
  // An embedded dotted quad (::ffff:1.2.3.4) stands for the last two groups.
  const lastColon = text.lastIndexOf(":");
  const quad = text.slice(lastColon + 1);
  if (quad.includes(".")) {
    const v4 = parseV4(quad);
    text = `${text.slice(0, lastColon + 1)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const toGroups = (p: string): bigint[] => (p === "" ? [] : p.split(":").map((g) => BigInt(parseInt(g, 16))));
  let groups: bigint[];
  const dbl = text.indexOf("::");
  if (dbl >= 0) {
    const left = toGroups(text.slice(0, dbl));
    const right = toGroups(text.slice(dbl + 2));
    groups = [...left, ...new Array<bigint>(8 - left.length - right.length).fill(0n), ...right];
  } else {
    groups = toGroups(text);
  }
  let v = 0n;
  for (const g of groups) v = (v << 16n) | g;
  return v;
}

/** Parses a literal IPv4/IPv6 address (zone ids are ignored); undefined when it is not one. */
export function parseIp(input: string): IpAddr | undefined {
  let s = input.trim();
  if (s.startsWith("[") && s.endsWith("]")) s = s.slice(1, -1);
  const zone = s.indexOf("%");
  if (zone >= 0) s = s.slice(0, zone);
  if (isIPv4(s)) return { family: 4, value: parseV4(s) };
  if (isIPv6(s)) return { family: 6, value: parseV6(s) };
  return undefined;
}

export function formatIp(ip: IpAddr): string {
  if (ip.family === 4) {
    const v = ip.value;
    return [24n, 16n, 8n, 0n].map((sh) => String((v >> sh) & 0xffn)).join(".");
  }
  const groups: number[] = [];
  for (let i = 7; i >= 0; i--) groups.push(Number((ip.value >> BigInt(i * 16)) & 0xffffn));
  // RFC 5952: compress the longest run (length >= 2) of zero groups.
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) { i++; continue; }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) { best = i; bestLen = j - i; }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (best < 0) return hex.join(":");
  return `${hex.slice(0, best).join(":")}::${hex.slice(best + bestLen).join(":")}`;
}

function mask(family: 4 | 6, prefix: number): bigint {
  const bits = BigInt(BITS[family]);
  return ((1n << bits) - 1n) ^ ((1n << (bits - BigInt(prefix))) - 1n);
}

/** Parses "a.b.c.d/n", "x::/n" or a bare address (a single-address range). Throws with a specific message. */
export function parseCidr(input: string): Cidr {
  const text = input.trim();
  const slash = text.indexOf("/");
  const addrText = slash >= 0 ? text.slice(0, slash) : text;
  const addr = parseIp(addrText);
  if (!addr || addrText.includes("%")) throw new Error(`invalid CIDR "${input}": "${addrText}" is not an IPv4 or IPv6 address`);
  const max = BITS[addr.family];
  let prefix: number = max;
  if (slash >= 0) {
    const p = text.slice(slash + 1);
    if (!/^\d{1,3}$/.test(p) || Number(p) > max) {
      throw new Error(`invalid CIDR "${input}": prefix length must be an integer from 0 to ${max}`);
    }
    prefix = Number(p);
  }
  return { family: addr.family, base: addr.value & mask(addr.family, prefix), prefix, text };
}

export function cidr(text: string): Cidr {
  return parseCidr(text);
}

export function cidrContains(range: Cidr, ip: IpAddr): boolean {
  return range.family === ip.family && (ip.value & mask(range.family, range.prefix)) === range.base;
}

/** Whether every address of `inner` lies in `outer`. */
export function cidrWithin(inner: Cidr, outer: Cidr): boolean {
  return inner.family === outer.family && inner.prefix >= outer.prefix && cidrContains(outer, { family: inner.family, value: inner.base });
}
