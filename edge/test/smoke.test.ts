import { describe, expect, it } from "vitest";
import { makeApp, TAG } from "./fakes.ts";

describe("smoke", () => {
  it("scans a tag", async () => {
    const { app } = await makeApp();
    const res = await app.inject({ method: "POST", url: "/v3/scanTag", headers: { "x-apikey": "key-a" }, payload: { data: TAG, name: "n" } });
    console.log(res.statusCode, res.headers["content-type"], res.body.slice(0, 3000));
    expect(res.statusCode).toBe(200);
  });
});
