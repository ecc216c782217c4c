// Names resolve through c-ares with a time-out, never through dns.lookup on libuv's threadpool: a creative that
// loads names from a nameserver that never answers must not stall anything else in the process.
import { createSocket } from "node:dgram";
import { readFile } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { dnsResolver } from "../src/outbound/index.ts";

describe("DNS resolver", () => {
  it("answers localhost locally", async () => {
    expect(await dnsResolver()("localhost")).toEqual(["127.0.0.1", "::1"]);
  });

  it("gives up on a nameserver that never answers, and the threadpool stays free meanwhile", async () => {
    const blackhole = createSocket("udp4");
    await new Promise<void>((r) => blackhole.bind(0, "127.0.0.1", () => r()));
    const port = (blackhole.address() as AddressInfo).port;
    try {
      const resolve = dnsResolver({ servers: [`127.0.0.1:${port}`], timeoutMs: 300, tries: 1 });
      // Far more lookups than libuv has threads: with dns.lookup these would queue every file read behind them.
      const lookups = Array.from({ length: 16 }, (_, i) => resolve(`slow${i}.example`).then(() => "resolved", (e: NodeJS.ErrnoException) => e.code));
      const reads = await Promise.race([
        Promise.all(Array.from({ length: 8 }, () => readFile(new URL(import.meta.url)))).then(() => "reads done"),
        lookups[0]!.then(() => "lookups first"),
      ]);
      expect(reads).toBe("reads done");
      expect(new Set(await Promise.all(lookups))).toEqual(new Set(["ETIMEOUT"]));
    } finally {
      blackhole.close();
    }
  });
});
