import { describe, expect, it } from "vitest";
import { appPerTest, TAG, ZIP } from "./fakes.ts";

// A workspace's stored allowed_domains: set once by its customer, used by every v3 tag and zip scan of that
// workspace whose request gives none (issue 24, "per workspace as a stored setting").
const setup = appPerTest();
const headers = { "x-apikey": "key-a" };
const tagAllowlist = (job: { input: { case?: string; value?: unknown } }) =>
  job.input.case === "tag" || job.input.case === "zip" ? [...(job.input.value as { allowedDomains: string[] }).allowedDomains] : undefined;

describe("workspace settings", () => {
  it("PUT stores the list (normalised), GET reads it back; another customer's workspace 9 is its own", async () => {
    const { app } = await setup();
    const put = await app.inject({ method: "PUT", url: "/v3/workspaces/9/settings", headers, payload: { allowed_domains: ["*.Doubleclick.net", "adsrvr.org.", "adsrvr.org"] } });
    expect(put.statusCode, put.body).toBe(200);
    expect(JSON.parse(put.body)).toEqual({ workspace_id: 9, allowed_domains: ["doubleclick.net", "adsrvr.org"], updated_at: "2023-11-14T22:13:20.000Z" });
    const got = await app.inject({ method: "GET", url: "/v3/workspaces/9/settings", headers });
    expect(JSON.parse(got.body).allowed_domains).toEqual(["doubleclick.net", "adsrvr.org"]);
    const other = await app.inject({ method: "GET", url: "/v3/workspaces/9/settings", headers: { "x-apikey": "key-b" } });
    expect(JSON.parse(other.body)).toEqual({ workspace_id: 9, allowed_domains: [], updated_at: null });
    expect((await app.inject({ method: "GET", url: "/v3/workspaces/9/settings" })).statusCode).toBe(401);
  });

  it("refuses what is not a setting, with the documented errors", async () => {
    const { app } = await setup();
    const cases: Array<[string, unknown, RegExp]> = [
      ["/v3/workspaces/0/settings", { allowed_domains: [] }, /^workspace_id: must be a positive integer$/],
      ["/v3/workspaces/x/settings", { allowed_domains: [] }, /^workspace_id: must be a positive integer$/],
      ["/v3/workspaces/3/settings", {}, /^allowed_domains: required/],
      ["/v3/workspaces/3/settings", { allowed_domains: "a.example" }, /^allowed_domains: must be an array of domain names, got string/],
      ["/v3/workspaces/3/settings", { allowed_domains: ["https://a.example/"] }, /^allowed_domains\[0\]: must be a domain name/],
      ["/v3/workspaces/3/settings", { allowed_domains: Array.from({ length: 201 }, (_, i) => `d${i}.example`) }, /^allowed_domains: at most 200 entries$/],
      ["/v3/workspaces/3/settings", { allowed_domains: [], colour: "red" }, /^colour: unknown field$/],
      ["/v3/workspaces/3/settings", [1], /^body: a JSON object is required$/],
    ];
    for (const [url, payload, message] of cases) {
      const res = await app.inject({ method: "PUT", url, headers, payload: payload as object });
      expect(res.statusCode, url).toBe(400);
      expect(JSON.parse(res.body), url).toMatchObject({ error_type: "payload_error" });
      expect(JSON.parse(res.body).message, url).toMatch(message);
    }
  });

  it("a scan of the workspace with no allowed_domains uses the stored list; its own list wins; other workspaces have none", async () => {
    const { app, dispatcher } = await setup();
    await app.inject({ method: "PUT", url: "/v3/workspaces/4/settings", headers, payload: { allowed_domains: ["publisher.example", "cdn.example"] } });
    const scan = async (url: string, payload: object) => {
      const res = await app.inject({ method: "POST", url, headers, payload });
      expect(res.statusCode, res.body).toBe(200);
      return tagAllowlist(dispatcher.jobs.at(-1)!);
    };
    expect(await scan("/v3/scanTag", { data: TAG, workspace_id: 4 })).toEqual(["publisher.example", "cdn.example"]);
    expect(await scan("/v3/scanZip", { data: ZIP, workspace_id: 4 })).toEqual(["publisher.example", "cdn.example"]);
    expect(await scan("/v3/scanTag", { data: TAG, workspace_id: 4, allowed_domains: ["own.example"] })).toEqual(["own.example"]);
    expect(await scan("/v3/scanTag", { data: TAG, workspace_id: 5 })).toEqual([]);
    expect(await scan("/v3/scanTag", { data: TAG })).toEqual([]);
    // Cleared with an empty list.
    await app.inject({ method: "PUT", url: "/v3/workspaces/4/settings", headers, payload: { allowed_domains: [] } });
    expect(await scan("/v3/scanTag", { data: TAG, workspace_id: 4 })).toEqual([]);
  });

  it("a store that cannot answer fails the workspace's scan (its list cannot be known) and refunds it", async () => {
    const { app, store, authFake } = await setup();
    store.workspacesDown = true;
    const res = await app.inject({ method: "POST", url: "/v3/scanTag", headers, payload: { data: TAG, workspace_id: 4 } });
    expect(res.statusCode).toBe(400);
    expect(JSON.parse(res.body)).toMatchObject({ error_type: "processing_error" });
    expect(JSON.parse(res.body).message).toMatch(/the report store/);
    expect(authFake.refunds).toHaveLength(1);
    // Without a workspace nothing is asked.
    expect((await app.inject({ method: "POST", url: "/v3/scanTag", headers, payload: { data: TAG } })).statusCode).toBe(200);
  });
});
