// The web console's route (GET / and its two files) and the page script's pure parts: what is served, under which
// headers, and which request each choice of the form makes. The page itself runs in console.browser.test.ts.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { CONSOLE_CSP } from "../src/console/site.ts";
import { detectKind as cliDetectKind, ENDPOINTS as CLI_ENDPOINTS } from "@cva/cli/detect.mjs";
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
      expect(planScan(kind, none)).toEqual({ path: ENDPOINTS[kind], version: "v3", targeting: undefined, why: "" });
    }
    expect(ENDPOINTS).toMatchObject({ video: "/v3/scanVideo", image: "/v3/scanImage", audio: "/v3/scanAudio" });
  });

  it("sends a tag or zip with targeting to v2 (the only scans with targeting), with the keys each takes", () => {
    expect(planScan("tag", { device: "mobile", language: "nl-NL", country: "nld" })).toMatchObject({ path: "/v2/scanTag", version: "v2", targeting: { device: "mobile", language: "nl-NL", country: "nld" } });
    expect(planScan("tag", { ...none, country: "usa" })).toMatchObject({ path: "/v2/scanTag", targeting: { country: "usa" } });
    expect(planScan("zip", { device: "mobile", language: "", country: "nld" })).toMatchObject({ path: "/v2/scanZip", targeting: { device: "mobile" } });
    // A zip takes no country (spec: device and language), so a country alone keeps it on v3.
    expect(planScan("zip", { ...none, country: "nld" })).toMatchObject({ path: "/v3/scanZip", version: "v3" });
    for (const kind of ["vast", "video", "image", "audio"] as const) expect(planScan(kind, { device: "mobile", language: "de", country: "nld" }).version).toBe("v3");
  });

  it("encodes bytes as the API's base64 and formats sizes in decimal units", () => {
    const bytes = new Uint8Array(100_000).map((_, i) => (i * 7) % 256);
    expect(base64Of(bytes)).toBe(Buffer.from(bytes).toString("base64"));
    expect(base64Of(new TextEncoder().encode("<p>é</p>"))).toBe(Buffer.from("<p>é</p>").toString("base64"));
    expect([formatBytes(999), formatBytes(1500), formatBytes(250_000), formatBytes(8_400_000), formatBytes(2e9)]).toEqual(["999 B", "1.5 KB", "250 KB", "8.4 MB", "2.0 GB"]);
  });
});

describe("the kind of a file (the console's rules are the CLI's)", () => {
  const bytes = (...parts: Array<string | number[]>) => new Uint8Array(Buffer.concat(parts.map((p) => (typeof p === "string" ? Buffer.from(p, "latin1") : Buffer.from(p)))));
  const ftyp = (brand: string) => bytes([0, 0, 0, 0x18], "ftyp", brand, [0, 0, 0, 0], "isom");
  const ts = new Uint8Array(600);
  for (const at of [0, 188, 376]) ts[at] = 0x47;
  const CASES: Array<[string, Uint8Array, string | undefined]> = [
    ["banner.zip", bytes("PK", [3, 4], "rest"), "zip"],
    ["empty.zip", bytes("PK", [5, 6], new Array(18).fill(0)), "zip"],
    ["renamed.html", bytes("PK", [3, 4], "rest"), "zip"],
    ["tag.html", bytes("<script src='x'></script>"), "tag"],
    ["tag.txt", bytes("document.write('x')"), "tag"],
    ["noext", bytes([0xef, 0xbb, 0xbf], "  <div>ad</div>"), "tag"],
    ["a.png", bytes([0x89], "PNG\r\n", [0x1a], "\n"), "image"],
    ["a.jpg", bytes([0xff, 0xd8, 0xff, 0xe0]), "image"],
    ["a.gif", bytes("GIF89a"), "image"],
    ["a.webp", bytes("RIFF", [0, 0, 0, 0], "WEBPVP8 "), "image"],
    ["a.avif", ftyp("avif"), "image"],
    ["logo.svg", bytes("<?xml version='1.0'?><svg xmlns='http://www.w3.org/2000/svg'/>"), "image"],
    ["a.mp4", ftyp("isom"), "video"],
    ["a.mov", ftyp("qt  "), "video"],
    ["a.m4a", ftyp("M4A "), "audio"],
    ["audio-only.m4a", ftyp("isom"), "audio"],
    ["a.webm", bytes([0x1a, 0x45, 0xdf, 0xa3]), "video"],
    ["a.weba", bytes([0x1a, 0x45, 0xdf, 0xa3]), "audio"],
    ["a.ogg", bytes("OggS"), "audio"],
    ["a.ogv", bytes("OggS"), "video"],
    ["a.ts", ts, "video"],
    ["a.mpg", bytes([0, 0, 1, 0xba]), "video"],
    ["a.avi", bytes("RIFF", [0, 0, 0, 0], "AVI LIST"), "video"],
    ["a.wav", bytes("RIFF", [0, 0, 0, 0], "WAVEfmt "), "audio"],
    ["a.mp3", bytes("ID3", [4, 0]), "audio"],
    ["raw.mp3", bytes([0xff, 0xfb, 0x90, 0x64]), "audio"],
    ["a.aac", bytes([0xff, 0xf1, 0x50, 0x80]), "audio"],
    ["a.flac", bytes("fLaC"), "audio"],
    ["vast.xml", bytes("<?xml version='1.0'?><VAST version='4.0'></VAST>"), undefined],
    ["blob.bin", bytes([1, 2, 3, 4]), undefined],
    ["empty.html", new Uint8Array(0), undefined],
    // Bytes nobody recognises: the extension decides, and the API says what is wrong with the file.
    ["broken.zip", bytes("not a zip"), "zip"],
    ["broken.mp4", bytes([1, 2, 3, 4]), "video"],
  ];
  it.each(CASES)("%s", (name, head, kind) => {
    const console = detectKind(name, head);
    expect(console.kind).toBe(kind);
    expect(cliDetectKind(name, head)).toEqual(console.kind ? console : { kind: undefined, why: expect.any(String) });
  });
  it("posts each kind to the same endpoint as the CLI", () => {
    expect(ENDPOINTS).toEqual(CLI_ENDPOINTS);
  });
});
