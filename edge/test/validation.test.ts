import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { b64, makeApp, TAG, ZIP } from "./fakes.ts";

let ctx: Awaited<ReturnType<typeof makeApp>>;
beforeAll(async () => {
  ctx = await makeApp();
});
afterAll(async () => ctx.app.close());

// [endpoint, body, field named in the message]
const CASES: Array<[string, unknown, RegExp]> = [
  ["/v3/scanTag", {}, /^data: required/],
  ["/v3/scanTag", { data: null }, /^data: required/],
  ["/v3/scanTag", { data: 5 }, /^data: must be a string/],
  ["/v3/scanTag", { data: "" }, /^data: must not be empty/],
  ["/v3/scanTag", { data: "PGRpdj4=x" }, /^data: not valid base64/],
  ["/v3/scanTag", { data: "PGRpdj4" }, /^data: not valid base64/],
  ["/v3/scanTag", { data: "PGRp dj4=" }, /^data: not valid base64/],
  ["/v3/scanTag", { data: "PGRpdj4-" }, /^data: not valid base64/],
  ["/v3/scanTag", { data: "QR==" }, /^data: not valid base64/],
  ["/v3/scanTag", { data: "====" }, /^data: not valid base64/],
  ["/v3/scanTag", { data: b64("   ") }, /^data: the ad tag is blank/],
  ["/v3/scanTag", { data: b64("a".repeat(1024 * 1024 + 1)) }, /^data: ad tag is 1048577 bytes decoded, over the limit/],
  ["/v3/scanTag", { data: TAG, spec_id: "0" }, /^spec_id: must be an integer/],
  ["/v3/scanTag", { data: TAG, spec_id: 1.5 }, /^spec_id: must be an integer/],
  ["/v3/scanTag", { data: TAG, spec_id: 99 }, /^spec_id: unknown specification set 99/],
  ["/v3/scanTag", { data: TAG, workspace_id: -1 }, /^workspace_id: must be a non-negative integer/],
  ["/v3/scanTag", { data: TAG, workspace_id: 2 ** 60 }, /^workspace_id: must be a non-negative integer/],
  ["/v3/scanTag", { data: TAG, workspace_id: "3" }, /^workspace_id: must be an integer/],
  ["/v3/scanTag", { data: TAG, name: 3 }, /^name: must be a string/],
  ["/v3/scanTag", { data: TAG, name: "n".repeat(257) }, /^name: longer than 256/],
  ["/v3/scanTag", { data: TAG, allowed_domains: "example.com" }, /^allowed_domains: must be an array of domain names, got string/],
  ["/v3/scanTag", { data: TAG, allowed_domains: ["ok.example", 5] }, /^allowed_domains\[1\]: must be a string, got number/],
  ["/v3/scanTag", { data: TAG, allowed_domains: ["https://x.example/"] }, /^allowed_domains\[0\]: must be a domain name such as ads\.example\.com/],
  ["/v3/scanZip", { data: ZIP, allowed_domains: ["a..b"] }, /^allowed_domains\[0\]: must be a domain name/],
  ["/v3/scanTag", { data: TAG, allowed_domains: Array.from({ length: 201 }, (_, i) => `d${i}.example`) }, /^allowed_domains: at most 200 entries$/],
  ["/v2/scanTag", { data: TAG, targeting: "mobile" }, /^targeting: must be an object/],
  ["/v2/scanTag", { data: TAG, targeting: [] }, /^targeting: must be an object/],
  ["/v2/scanTag", { data: TAG, targeting: { device: "tablet" } }, /^targeting\.device: must be one of desktop, mobile/],
  ["/v2/scanTag", { data: TAG, targeting: { device: 1 } }, /^targeting\.device: must be a string/],
  ["/v2/scanTag", { data: TAG, targeting: { language: "en_US" } }, /^targeting\.language: not a valid Accept-Language/],
  ["/v2/scanTag", { data: TAG, targeting: { language: "en;q=2" } }, /^targeting\.language: not a valid Accept-Language/],
  ["/v2/scanTag", { data: TAG, targeting: { language: "" } }, /^targeting\.language: must not be empty/],
  ["/v2/scanTag", { data: TAG, targeting: { country: "deu" } }, /^targeting\.country: must be one of usa, nld/],
  ["/v2/scanTag", { data: TAG, targeting: { page_url: "ftp://x.example/" } }, /^targeting\.page_url: must be an http or https URL/],
  ["/v2/scanTag", { data: TAG, targeting: { page_url: "javascript:alert(1)" } }, /^targeting\.page_url: must be an http or https URL/],
  ["/v2/scanTag", { data: TAG, targeting: { page_url: "not a url" } }, /^targeting\.page_url: not a valid absolute URL/],
  // The host page is served at page_url's origin: never on a private, loopback or link-local host (issue 20, hole 3).
  ["/v2/scanTag", { data: TAG, targeting: { page_url: "http://127.0.0.1:9203/" } }, /^targeting\.page_url: host 127\.0\.0\.1 is not a public address$/],
  ["/v2/scanTag", { data: TAG, targeting: { page_url: "http://2130706433/metrics" } }, /^targeting\.page_url: host 127\.0\.0\.1 is not a public address$/],
  ["/v2/scanTag", { data: TAG, targeting: { page_url: "http://localhost:9203/" } }, /^targeting\.page_url: host localhost is not a public address$/],
  ["/v2/scanTag", { data: TAG, targeting: { page_url: "https://app.localhost./" } }, /^targeting\.page_url: host app\.localhost is not a public address$/],
  ["/v2/scanTag", { data: TAG, targeting: { page_url: "http://[::1]:8080/" } }, /^targeting\.page_url: host ::1 is not a public address$/],
  ["/v2/scanTag", { data: TAG, targeting: { page_url: "http://[::ffff:10.0.0.7]/" } }, /^targeting\.page_url: host ::ffff:a00:7 is not a public address$/],
  ["/v2/scanTag", { data: TAG, targeting: { page_url: "http://169.254.169.254/latest/meta-data/" } }, /^targeting\.page_url: host 169\.254\.169\.254 is not a public address$/],
  ["/v2/scanTag", { data: TAG, targeting: { page_url: "http://192.168.1.10/" } }, /^targeting\.page_url: host 192\.168\.1\.10 is not a public address$/],
  // v3 tag and zip targeting (our extension to the spec): v2's checks and messages.
  ["/v3/scanTag", { data: TAG, targeting: "mobile" }, /^targeting: must be an object, got string$/],
  ["/v3/scanTag", { data: TAG, targeting: { device: "tablet" } }, /^targeting\.device: must be one of desktop, mobile$/],
  ["/v3/scanTag", { data: TAG, targeting: { device: 1 } }, /^targeting\.device: must be a string/],
  ["/v3/scanTag", { data: TAG, targeting: { language: "en_US" } }, /^targeting\.language: not a valid Accept-Language value/],
  ["/v3/scanTag", { data: TAG, targeting: { language: "" } }, /^targeting\.language: must not be empty/],
  ["/v3/scanTag", { data: TAG, targeting: { country: "deu" } }, /^targeting\.country: must be one of usa, nld$/],
  ["/v3/scanTag", { data: TAG, targeting: { page_url: "http://127.0.0.1:9203/" } }, /^targeting\.page_url: host 127\.0\.0\.1 is not a public address$/],
  ["/v3/scanZip", { data: ZIP, targeting: [] }, /^targeting: must be an object, got array$/],
  ["/v3/scanZip", { data: ZIP, targeting: { device: "tv" } }, /^targeting\.device: must be one of desktop, mobile$/],
  ["/v3/scanZip", { data: ZIP, targeting: { language: "en;q=2" } }, /^targeting\.language: not a valid Accept-Language value/],
  ["/v2/scanZip", { data: TAG }, /^data: not a zip archive/],
  ["/v2/scanZip", { data: b64(Buffer.alloc(10 * 1024 * 1024 + 1, 0x50)) }, /^data: zip is 10485761 bytes decoded, over the limit/],
  ["/v2/scanZip", { data: ZIP, targeting: { device: "tv" } }, /^targeting\.device:/],
  ["/v3/scanVAST", { data: b64("ftp://x.example/vast.xml") }, /^data: must be the base64 of an http or https URL/],
  ["/v3/scanVAST", { data: b64("<VAST/>") }, /^data: must be the base64 of an http or https URL/],
  ["/v3/scanVAST", { data: b64(`https://x.example/${"a".repeat(9000)}`) }, /^data: VAST URL is \d+ bytes decoded, over the limit|^data: VAST URL longer/],
  ["/v3/scanVAST", { data: b64("https://x.example/v.xml"), spec_id: 42 }, /^spec_id: unknown/],
];

describe("validation table", () => {
  for (const [url, body, message] of CASES) {
    it(`${url} ${JSON.stringify(body).slice(0, 80)}`, async () => {
      const res = await ctx.app.inject({ method: "POST", url, headers: { "x-apikey": "key-a" }, payload: body as object });
      expect(res.statusCode).toBe(400);
      const parsed = JSON.parse(res.body);
      expect(parsed.error_type).toBe("payload_error");
      expect(parsed.message).toMatch(message);
    });
  }

  it("accepts valid optional fields, nulls and unknown fields", async () => {
    for (const [url, body] of [
      ["/v3/scanTag", { data: TAG, spec_id: 0, workspace_id: 12, name: "Spring <b>", unknown: { x: 1 } }],
      ["/v3/scanTag", { data: TAG, spec_id: null, workspace_id: null, name: null }],
      ["/v3/scanTag", { data: TAG, allowed_domains: ["*.Doubleclick.net", "adsrvr.org.", "publisher.example"] }],
      ["/v3/scanZip", { data: ZIP, allowed_domains: null }],
      ["/v2/scanTag", { data: TAG, targeting: { device: "desktop", language: "en-US,en;q=0.8,*;q=0.1", country: "usa", page_url: "http://a.example/p?q=1" } }],
      ["/v2/scanTag", { data: TAG, targeting: null }],
      ["/v3/scanTag", { data: TAG, spec_id: 0, targeting: { device: "mobile", language: "nl-NL,nl;q=0.9,en;q=0.8", country: "nld", page_url: "https://news.example/a" } }],
      ["/v3/scanTag", { data: TAG, targeting: null }],
      ["/v3/scanTag", { data: TAG, targeting: {} }],
      ["/v3/scanZip", { data: ZIP, targeting: { device: "desktop", language: "de-DE", country: "ignored", page_url: 5 } }],
      ["/v2/scanZip", { data: ZIP, targeting: { device: "mobile", language: "nl", country: "ignored", page_url: 5 } }],
      ["/v3/scanVAST", { data: b64("  https://ads.example/vast?x=1\n") }],
    ] as const) {
      const res = await ctx.app.inject({ method: "POST", url, headers: { "x-apikey": "key-a" }, payload: body as object });
      expect(res.statusCode, `${url} ${res.body}`).toBe(200);
    }
  });

  it("an unset content-type still parses JSON", async () => {
    const res = await ctx.app.inject({ method: "POST", url: "/v3/scanTag", headers: { "x-apikey": "key-a" }, payload: Buffer.from(JSON.stringify({ data: TAG })) });
    expect(res.statusCode).toBe(200);
  });
});
