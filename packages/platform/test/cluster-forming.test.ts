// Creating R3 streams and buckets while a cluster is still forming: the meta leader answers "no suitable peers for
// placement" until every JetStream peer registered, which a busy machine stretches to seconds (it failed a CI run).
import { describe, expect, it } from "vitest";
import { isClusterForming, whileForming } from "../src/nats/replicas.ts";

// The shape of @nats-io/jetstream's JetStreamApiError: `code` is the server's err_code.
const apiError = (code: number, description: string) => Object.assign(new Error(description), { name: "JetStreamApiError", code });

describe("creating streams while the cluster forms", () => {
  it("tells a forming cluster from a wrong request", () => {
    expect(isClusterForming(apiError(10005, "no suitable peers for placement"))).toBe(true);
    expect(isClusterForming(apiError(10008, "JetStream system temporarily unavailable"))).toBe(true);
    expect(isClusterForming(apiError(10058, "stream name already in use with a different configuration"))).toBe(false);
    expect(isClusterForming(new Error("timeout"))).toBe(false);
    expect(isClusterForming(undefined)).toBe(false);
  });

  it("creates again while peers are missing, then returns what the creation returned", async () => {
    let calls = 0;
    const r = await whileForming(async () => {
      if (++calls < 3) throw apiError(10005, "no suitable peers for placement");
      return "created";
    });
    expect(r).toBe("created");
    expect(calls).toBe(3);
  });

  it("gives up at once on any other error, and after its bound on a cluster that never forms", async () => {
    let calls = 0;
    await expect(whileForming(async () => {
      calls++;
      throw apiError(10058, "stream name already in use");
    })).rejects.toThrow("already in use");
    expect(calls).toBe(1);
    await expect(whileForming(async () => {
      throw apiError(10005, "no suitable peers for placement");
    }, 500)).rejects.toThrow("no suitable peers");
  });
});
