// The web console's route (GET / and its two files) and the page script's pure parts: what is served, under which
// headers, and which request each choice of the form makes. The page itself runs in console.browser.test.ts.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { CONSOLE_CSP } from "../src/console/site.ts";
import * as creativeKind from "@cva/creative-kind";
import { base64Of, detectKind, ENDPOINTS, formatBytes, planScan } from "../src/console/page/app.js";
import { appPerTest } from "./fakes.ts";

const setup = appPerTest();

describe("GET / (the web console)", () => {
  it("serves the page without a key, under a CSP that admits only our own script, style and API", async () => {
    const { app, authFake } = await setup();
    const res = await app.inject({ method: "GET", url: "/" });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(res.headers["content-security-policy"]).toBe(CONSOLE_CSP);
    for (const directive of ["default-src 'none'", "script-src 'self'", "style-src 'self'", "connect-src 'self'", "img-src 'self' data:", "form-action 'none'", "base-uri 'none'", "frame-ancestors 'none'"]) {
      expect(CONSOLE_CSP.split("; ")).toContain(directive);
    }
    expect(CONSOLE_CSP).not.toMatch(/unsafe|\*|https?:/);
    expect(res.headers["x-content-type-options"]).toBe("nosniff");
    expect(res.headers["referrer-policy"]).toBe("no-referrer");
    expect(authFake.calls).toEqual([]);
    // Nothing inline for the CSP to refuse: one external module script, one stylesheet, no style attributes.
    const scripts = [...res.body.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
    expect(scripts).toHaveLength(1);
    expect(scripts[0]).toMatch(/type="module" src="\/console\/app\.[0-9a-f]{12}\.js" integrity="sha384-/);
    expect(res.body).not.toMatch(/<style|\sstyle=|\son[a-z]+=|javascript:/i);
    expect(res.body).not.toMatch(/\{\{/);
  });

  it("serves the script and stylesheet under content-hashed names with their Subresource Integrity", async () => {
    const { app } = await setup();
    const page = (await app.inject({ method: "GET", url: "/" })).body;
    for (const [tag, type] of [[/<script[^>]*src="([^"]+)" integrity="([^"]+)"/, "text/javascript"], [/<link rel="stylesheet" href="([^"]+)" integrity="([^"]+)"/, "text/css"]] as const) {
      const [, href, integrity] = tag.exec(page)!;
      const res = await app.inject({ method: "GET", url: href! });
      expect(res.statusCode, href).toBe(200);
      expect(res.headers["content-type"]).toMatch(new RegExp(`^${type}`));
      expect(res.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
      expect(res.headers["x-content-type-options"]).toBe("nosniff");
      expect(`sha384-${createHash("sha384").update(res.rawPayload).digest("base64")}`).toBe(integrity);
    }
  });

  it("detects kinds with the CLI's own module, which the served script imports from this origin", async () => {
    expect(detectKind).toBe(creativeKind.detectKind);
    expect(ENDPOINTS).toBe(creativeKind.ENDPOINTS);
    const { app } = await setup();
    const page = (await app.inject({ method: "GET", url: "/" })).body;
    const script = (await app.inject({ method: "GET", url: /<script[^>]*src="([^"]+)"/.exec(page)![1]! })).body;
    expect(script).not.toContain(`from "@cva/creative-kind"`);
    const imported = /from "(\/console\/detect\.[0-9a-f]{12}\.js)"/.exec(script)?.[1];
    expect(imported).toBeDefined();
    const detect = await app.inject({ method: "GET", url: imported! });
    expect(detect.statusCode).toBe(200);
    expect(detect.headers["content-type"]).toMatch(/^text\/javascript/);
    expect(detect.body).toContain("export function detectKind");
  });

  it("lists the spec sets and the targeting values the API accepts", async () => {
    const { app } = await setup();
    const page = (await app.inject({ method: "GET", url: "/" })).body;
    expect(page).toMatch(/<option value="0"[^>]*>0 · IAB guidelines<\/option>/);
    expect(page).toMatch(/<option value="1"[^>]*>1 · Chrome Heavy Ad Intervention<\/option>/);
    for (const v of ["desktop", "mobile", "usa", "nld"]) expect(page).toContain(`<option value="${v}">`);
    expect(page).toContain('data-max-tag-bytes="1048576"');
  });

  it("answers invalid_endpoint for other methods and files, before the key", async () => {
    const { app, authFake } = await setup();
    for (const [method, url] of [["POST", "/"], ["GET", "/index.html"], ["GET", "/console/app.js"], ["GET", "/console/app.000000000000.js"], ["GET", "/console/"], ["DELETE", "/"]] as const) {
      const res = await app.inject({ method, url, headers: { "x-apikey": "key-a" } });
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(JSON.parse(res.body).error_type).toBe("invalid_endpoint");
    }
    expect(authFake.calls).toEqual([]);
  });
});

describe("the console's request for each choice", () => {
  const none = { device: "", language: "", country: "" };
  it("sends every kind to its v3 endpoint without targeting", () => {
    for (const kind of ["tag", "zip", "vast", "video", "image", "audio"] as const) {
      expect(planScan(kind, none)).toEqual({ path: ENDPOINTS[kind], targeting: undefined });
    }
    expect(ENDPOINTS).toMatchObject({ tag: "/v3/scanTag", zip: "/v3/scanZip", video: "/v3/scanVideo", image: "/v3/scanImage", audio: "/v3/scanAudio" });
  });

  it("sends a tag or zip with targeting to its v3 endpoint (our extension), with the keys each takes", () => {
    expect(planScan("tag", { device: "mobile", language: "nl-NL", country: "nld" })).toEqual({ path: "/v3/scanTag", targeting: { device: "mobile", language: "nl-NL", country: "nld" } });
    expect(planScan("tag", { ...none, country: "usa" })).toEqual({ path: "/v3/scanTag", targeting: { country: "usa" } });
    expect(planScan("zip", { device: "mobile", language: "", country: "nld" })).toEqual({ path: "/v3/scanZip", targeting: { device: "mobile" } });
    // A zip takes no country (spec: device and language), so a country alone sends no targeting.
    expect(planScan("zip", { ...none, country: "nld" })).toEqual({ path: "/v3/scanZip", targeting: undefined });
    for (const kind of ["vast", "video", "image", "audio"] as const) {
      expect(planScan(kind, { device: "mobile", language: "de", country: "nld" })).toEqual({ path: ENDPOINTS[kind], targeting: undefined });
    }
  });

  it("encodes bytes as the API's base64 and formats sizes in decimal units", () => {
    const bytes = new Uint8Array(100_000).map((_, i) => (i * 7) % 256);
    expect(base64Of(bytes)).toBe(Buffer.from(bytes).toString("base64"));
    expect(base64Of(new TextEncoder().encode("<p>é</p>"))).toBe(Buffer.from("<p>é</p>").toString("base64"));
    expect([formatBytes(999), formatBytes(1500), formatBytes(250_000), formatBytes(8_400_000), formatBytes(2e9)]).toEqual(["999 B", "1.5 KB", "250 KB", "8.4 MB", "2.0 GB"]);
  });
});
