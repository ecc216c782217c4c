import { describe, expect, it } from "vitest";
import { create } from "@bufbuild/protobuf";
import { MetaSchema, TagReportSchema, VastReportSchema, ZipReportSchema } from "@cva/contracts";
import { ALL_LOCATIONS, loadCommonConfig, parseServerLocations, servedLocationOf, splitLocations, stampServerLocation } from "@cva/platform";
import { createSlotGate } from "../src/dispatch/slot-gate.ts";
import { until } from "../src/testing/until.ts";

describe("SERVER_LOCATION", () => {
  it("reads one location or several, normalised, and refuses unknown names", () => {
    expect(parseServerLocations(undefined)).toEqual(["usa"]);
    expect(parseServerLocations("")).toEqual(["usa"]);
    expect(parseServerLocations("nld")).toEqual(["nld"]);
    expect(parseServerLocations(" USA , nld,usa ")).toEqual(["usa", "nld"]);
    expect(() => parseServerLocations("usa,deu")).toThrow(/unknown location "deu"; known: usa, nld/);
    expect(() => parseServerLocations(",")).toThrow(/no location/);
    expect(ALL_LOCATIONS).toBe("usa,nld");
    expect(loadCommonConfig({ SERVER_LOCATION: "usa,nld" })).toMatchObject({ serverLocation: "usa,nld", serverLocations: ["usa", "nld"] });
  });

  it("runs a job for its targeting.country when served, else for the first location", () => {
    expect(splitLocations("usa,nld")).toEqual(["usa", "nld"]);
    expect(servedLocationOf("nld", ["usa", "nld"])).toBe("nld");
    expect(servedLocationOf("", ["usa", "nld"])).toBe("usa");
    expect(servedLocationOf("nld", ["usa"])).toBe("usa");
  });

  it("stamps meta.server_location of every report kind with the location the job ran for", () => {
    const tag = create(TagReportSchema, { meta: create(MetaSchema, { serverLocation: "usa,nld" }) });
    stampServerLocation({ case: "tag", value: tag }, "nld");
    expect(tag.meta?.serverLocation).toBe("nld");
    const zip = create(ZipReportSchema, { render: create(TagReportSchema, { meta: create(MetaSchema, {}) }) });
    stampServerLocation({ case: "zip", value: zip }, "nld");
    expect(zip.render?.meta?.serverLocation).toBe("nld");
    const vast = create(VastReportSchema, { meta: create(MetaSchema, {}) });
    stampServerLocation({ case: "vast", value: vast }, "usa");
    expect(vast.meta?.serverLocation).toBe("usa");
  });
});

describe("slot gate", () => {
  it("hands freed slots to waiters in arrival order, never more than its size", async () => {
    const gate = createSlotGate(1);
    const order: string[] = [];
    await gate.acquire();
    const b = gate.acquire().then(() => order.push("b"));
    const c = gate.acquire().then(() => order.push("c"));
    gate.release();
    await b;
    // The one that just released queues behind c.
    const a = gate.acquire().then(() => order.push("a"));
    gate.release();
    await c;
    gate.release();
    await a;
    expect(order).toEqual(["b", "c", "a"]);
    gate.close();
    await gate.acquire();
  });

  it("says when a slot is free without taking it, and not while a freed slot goes to a waiter", async () => {
    const gate = createSlotGate(1);
    await gate.whenFree();
    await gate.acquire();
    let free = 0;
    const watch = () => gate.whenFree().then(() => free++);
    void watch();
    const b = gate.acquire();
    // The slot goes to b, who waited for it: still none free.
    gate.release();
    await b;
    await Promise.resolve();
    expect(free).toBe(0);
    gate.release();
    await until("whenFree to resolve", async () => free, (n) => n === 1, 1_000);
    // It took nothing: the slot is still there to acquire.
    await gate.acquire();
    gate.close();
    await gate.whenFree();
  });
});
