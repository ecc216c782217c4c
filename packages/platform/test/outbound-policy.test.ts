import { describe, expect, it } from "vitest";
import { createOutboundPolicy, outboundPolicyFromEnv } from "../src/outbound/index.ts";

const none = createOutboundPolicy([]);
const loopback = createOutboundPolicy(["127.0.0.0/8", "::1/128"]);
const everything = createOutboundPolicy(["0.0.0.0/0", "::/0"]);

describe("CIDR parsing", () => {
  it("accepts IPv4, IPv6, bare addresses and whitespace/empty entries", () => {
    expect(() => createOutboundPolicy([" 10.0.0.0/8", "fd00::/8 ", "192.168.1.5", "", "::ffff:10.0.0.0/104"])).not.toThrow();
  });

  it.each([
    ["10.0.0.0/33", /prefix length must be an integer from 0 to 32/],
    ["::/129", /from 0 to 128/],
    ["10.0.0/8", /is not an IPv4 or IPv6 address/],
    ["example.com/24", /is not an IPv4 or IPv6 address/],
    ["10.0.0.0/x", /prefix length/],
    ["10.0.0.0/-1", /prefix length/],
  ])("rejects %s with a clear message", (c, msg) => {
    expect(() => createOutboundPolicy([c])).toThrow(msg);
  });

  it("reads OUTBOUND_ALLOWLIST and names the variable on error", () => {
    expect(outboundPolicyFromEnv({ OUTBOUND_ALLOWLIST: "127.0.0.0/8,::1/128" }).check("127.0.0.1").allowed).toBe(true);
    expect(outboundPolicyFromEnv({}).check("127.0.0.1").allowed).toBe(false);
    expect(() => outboundPolicyFromEnv({ OUTBOUND_ALLOWLIST: "127.0.0.0/8,nonsense" })).toThrow(/OUTBOUND_ALLOWLIST: invalid CIDR "nonsense"/);
    expect(outboundPolicyFromEnv({ OUTBOUND_ALLOWLIST: "127.0.0.0/8" }).describe()).toContain("127.0.0.0/8");
  });
});

describe("policy table", () => {
  it.each([
    "8.8.8.8",
    "1.1.1.1",
    "93.184.216.34",
    "2606:4700:4700::1111",
    "2a00:1450:4001:82a::200e",
    "64:ff9b::808:808", // NAT64 of a public address
    "::ffff:8.8.8.8",
  ])("allows public %s by default", (ip) => {
    expect(none.check(ip)).toMatchObject({ allowed: true });
  });

  it.each([
    ["127.0.0.1", "loopback"],
    ["127.255.255.254", "loopback"],
    ["::1", "loopback"],
    ["10.1.2.3", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.0.1", "private"],
    ["100.64.0.1", "CGNAT"],
    ["169.254.169.254", "link-local (metadata)"],
    ["169.254.0.1", "link-local"],
    ["fe80::1", "link-local"],
    ["fe80::1%eth0", "link-local"],
    ["fd00:ec2::254", "metadata"],
    ["100.100.100.200", "metadata"],
    ["168.63.129.16", "metadata"],
    ["fc00::1", "unique-local"],
    ["fd12:3456::1", "unique-local"],
    ["0.0.0.0", "unspecified"],
    ["0.1.2.3", "unspecified"],
    ["::", "unspecified"],
    ["224.0.0.1", "multicast"],
    ["239.255.255.250", "multicast"],
    ["ff02::1", "multicast"],
    ["255.255.255.255", "broadcast"],
    ["240.0.0.1", "reserved"],
    ["192.0.2.1", "documentation"],
    ["198.51.100.7", "documentation"],
    ["203.0.113.9", "documentation"],
    ["2001:db8::1", "documentation"],
    ["198.18.0.1", "benchmarking"],
    ["192.0.0.8", "IETF"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["::ffff:a9fe:a9fe", "link-local"],
    ["::ffff:0:7f00:1", "loopback"],
    ["64:ff9b::7f00:1", "loopback"],
    ["64:ff9b::a9fe:a9fe", "link-local"],
    ["64:ff9b:1::1", "NAT64"],
    ["2002:7f00:1::1", "loopback"],
    ["2002:a9fe:a9fe::", "link-local"],
    ["2001::1", "Teredo"],
    ["::7f00:1", "reserved"],
    ["100::1", "discard"],
    ["5f00::1", "reserved"],
    ["not-an-ip", "not an IP address"],
  ])("refuses %s (%s) by default", (ip, what) => {
    const d = none.check(ip);
    expect(d.allowed).toBe(false);
    expect(d.reason).toContain(what);
  });

  it("names the address and its kind", () => {
    expect(none.check("169.254.169.254").reason).toBe("169.254.169.254 is a link-local (metadata) address");
    expect(none.check("::ffff:a9fe:a9fe").reason).toContain("maps to 169.254.169.254");
  });

  it("lets the allowlist unlock loopback, in IPv4, IPv6 and mapped form", () => {
    for (const ip of ["127.0.0.1", "127.1.2.3", "::1", "::ffff:127.0.0.1"]) {
      const d = loopback.check(ip);
      expect(d.allowed, ip).toBe(true);
      expect(d.reason).toMatch(/allowed by allowlist entry/);
    }
    expect(loopback.check("10.0.0.1").allowed).toBe(false);
    expect(loopback.check("8.8.8.8").allowed).toBe(true);
  });

  it("does not let a broad entry unlock link-local or metadata addresses", () => {
    for (const ip of ["169.254.169.254", "::ffff:169.254.169.254", "fe80::1", "fd00:ec2::254", "100.100.100.200", "168.63.129.16"]) {
      expect(everything.check(ip).allowed, ip).toBe(false);
    }
    expect(createOutboundPolicy(["fc00::/7"]).check("fd00:ec2::254").allowed).toBe(false);
    expect(createOutboundPolicy(["100.64.0.0/10"]).check("100.100.100.200").allowed).toBe(false);
    // ...while broad entries do unlock ordinary private ranges.
    expect(everything.check("10.0.0.1").allowed).toBe(true);
    expect(everything.check("fd12::1").allowed).toBe(true);
  });

  it("unlocks link-local/metadata only through an explicit entry inside the range", () => {
    expect(createOutboundPolicy(["169.254.169.254/32"]).check("169.254.169.254").allowed).toBe(true);
    expect(createOutboundPolicy(["169.254.0.0/16"]).check("169.254.169.254").allowed).toBe(true);
    expect(createOutboundPolicy(["169.254.0.0/16"]).check("::ffff:169.254.169.254").allowed).toBe(true);
    expect(createOutboundPolicy(["169.254.0.0/15"]).check("169.254.169.254").allowed).toBe(false);
    expect(createOutboundPolicy(["fd00:ec2::254/128"]).check("fd00:ec2::254").allowed).toBe(true);
    expect(createOutboundPolicy(["fe80::/10"]).check("fe80::1").allowed).toBe(true);
  });

  it("never unlocks unspecified, multicast or broadcast", () => {
    for (const ip of ["0.0.0.0", "::", "224.0.0.1", "255.255.255.255", "ff02::1"]) {
      expect(everything.check(ip).allowed, ip).toBe(false);
    }
  });

  it("does not let an IPv4 entry unlock NAT64/6to4 forms, which a relay delivers", () => {
    expect(loopback.check("64:ff9b::7f00:1").allowed).toBe(false);
    expect(loopback.check("2002:7f00:1::").allowed).toBe(false);
  });
});
