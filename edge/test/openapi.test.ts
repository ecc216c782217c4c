import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { makeApp } from "./fakes.ts";

function collectRefs(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) node.forEach((n) => collectRefs(n, out));
  else if (node && typeof node === "object") {
    for (const [k, v] of Object.entries(node)) {
      if (k === "$ref" && typeof v === "string") out.push(v);
      else collectRefs(v, out);
    }
  }
  return out;
}

describe("/openapi.json and /docs", () => {
  it("is a structurally valid OpenAPI 3.1 document listing every endpoint", async () => {
    const routes: Array<{ method: string; url: string }> = [];
    const app2 = await makeApp();
    await app2.app.ready();
    // Every endpoint of CONTRACT §4 is served by the app and documented.
    for (const r of [
      ["POST", "/v3/scanTag"], ["POST", "/v3/scanVAST"], ["POST", "/v2/scanTag"], ["POST", "/v2/scanZip"], ["POST", "/v3/scanZip"],
      ["GET", "/v3/reports/{job_id}"], ["GET", "/v3/workspaces/{workspace_id}/reports"], ["GET", "/r/{token}"],
      ["GET", "/artifacts/{id}"], ["GET", "/healthz"], ["GET", "/readyz"], ["GET", "/openapi.json"], ["GET", "/docs"], ["GET", "/"],
    ] as const) {
      routes.push({ method: r[0], url: r[1] });
      const fastifyPath = r[1].replace(/\{(\w+)\}/g, ":$1");
      expect(app2.app.hasRoute({ method: r[0], url: fastifyPath }), `${r[0]} ${fastifyPath} is served`).toBe(true);
    }

    // Metrics are served on METRICS_PORT only, never on the public port.
    expect(app2.app.hasRoute({ method: "GET", url: "/metrics" })).toBe(false);

    const res = await app2.app.inject({ method: "GET", url: "/openapi.json" });
    expect(res.statusCode).toBe(200);
    const doc = JSON.parse(res.body);
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    expect(doc.info.title).toBeTruthy();
    expect(doc.info.version).toBeTruthy();
    expect(doc.paths["/metrics"]).toBeUndefined();
    for (const { method, url } of routes) {
      const op = doc.paths[url]?.[method.toLowerCase()];
      expect(op, `${method} ${url} documented`).toBeDefined();
      expect(Object.keys(op.responses).length).toBeGreaterThan(0);
      for (const p of op.parameters ?? []) if (p.in === "path") expect(url).toContain(`{${p.name}}`);
    }
    // Every operation in one of the document's groups (/docs lists by tag; untagged ones fall in "default"), scans first.
    const tagNames = doc.tags.map((t: { name: string }) => t.name);
    expect(tagNames[0]).toBe("Scans");
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, { tags?: string[] }>>)) {
      for (const op of Object.values(item)) expect(op.tags?.length === 1 && tagNames.includes(op.tags[0]!), `${path} tagged`).toBe(true);
    }
    expect(doc.paths["/v3/scanVideo"].post.tags).toEqual(["Scans"]);
    expect(doc.paths["/v3/reports/{job_id}"].get.tags).toEqual(["Reports"]);
    const scans = ["/v3/scanTag", "/v3/scanVAST", "/v2/scanTag", "/v2/scanZip", "/v3/scanZip"];
    for (const p of scans) {
      const op = doc.paths[p].post;
      expect(op.requestBody.content["application/json"].schema.required).toEqual(["data"]);
      expect(Object.keys(op.responses).sort()).toEqual(["200", "400", "401", "404", "429"]);
      expect(op.responses["400"].headers["Retry-After"]).toBeDefined();
      expect(op.description).toMatch(/15 MB/);
    }
    // Every $ref resolves; every component schema compiles as draft 2020-12.
    for (const ref of collectRefs(doc)) {
      expect(ref).toMatch(/^#\/components\/schemas\//);
      expect(doc.components.schemas[ref.split("/").pop()!], ref).toBeDefined();
    }
    const ajv = new Ajv2020({ strict: false });
    for (const [name, schema] of Object.entries(doc.components.schemas)) {
      expect(() => ajv.compile(schema as object), name).not.toThrow();
    }
    // Item shapes the spec leaves open are documented.
    const v3 = doc.components.schemas.TagReportV3.properties;
    expect(Object.keys(v3.dialogs.items.properties)).toEqual(["type", "message"]);
    expect(Object.keys(v3.local_storage.items.properties)).toEqual(["key", "value"]);
    expect(Object.keys(v3.missing_assets.items.properties)).toEqual(["url", "status", "resource_type", "reason"]);

    // /docs is Swagger UI on this document: every script and stylesheet a relative path the edge serves itself, no
    // inline script, no CDN; the document carries what the page shows.
    const docs = await app2.app.inject({ method: "GET", url: "/docs" });
    expect(docs.statusCode).toBe(200);
    expect(docs.headers["content-type"]).toMatch(/^text\/html/);
    expect(docs.headers["content-security-policy"]).toMatch(/^default-src 'none'; script-src 'self'; style-src 'self';/);
    expect(docs.headers["content-security-policy"]).not.toMatch(/unsafe-(inline|eval)/);
    expect(docs.body).not.toMatch(/<script>|https?:\/\/|\bstyle=/i);
    const assets = [...docs.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!).filter((u) => u !== "openapi.json");
    expect(assets.filter((u) => u.endsWith(".js"))).toHaveLength(2);
    for (const u of assets) {
      expect(u).toMatch(/^docs\/assets\//);
      const a = await app2.app.inject({ method: "GET", url: `/${u}` });
      expect(a.statusCode, u).toBe(200);
      expect(a.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    }
    const text = JSON.stringify(doc);
    for (const t of ["non_secure_urls", "has_backup_ad", "image_optimization", "Every documented key of a report is present", "schema_checks", "wrapper_chain"]) {
      expect(text, t).toContain(t);
    }
    // Object keys are required in the report schemas (typed clients).
    const mf = doc.components.schemas.VastReportV3.properties.creatives.items.properties.mediafiles.items;
    expect(mf.required).toEqual(expect.arrayContaining(["poster", "film_strip", "audio_wave", "file_info"]));
    expect(doc.components.schemas.TagReportV3.properties.landing_page.required).toContain("screenshot");
    await app2.app.close();
  });
});
