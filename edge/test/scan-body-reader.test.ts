// The streamed scan body (validation/scan-body-reader.ts) must answer exactly as JSON.parse followed by the request
// validation did: the same documents valid, the same error for the same body, the same request — and, for a payload
// it does not keep, the same checks and the same idempotency digest. Compared on hand-picked bodies and on seeded
// random mutations of them, each fed in random chunks (multi-byte characters split across chunks included).
import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { DEFAULT_LIMITS, type EdgeLimits } from "../src/ports.ts";
import { requestHash } from "../src/scan/request-hash.ts";
import type { ReceivedScanRequest, ReportKind, ScanRequest } from "../src/scan/types.ts";
import { parseScanBody } from "../src/validation/request.ts";
import { readScanBody } from "../src/validation/scan-body-reader.ts";
import { b64 } from "./fakes.ts";

// Small limits, so the limit checks are reached by small bodies.
const LIMITS: EdgeLimits = { ...DEFAULT_LIMITS, maxTagBytes: 64, maxZipBytes: 96, maxVastUrlBytes: 48, maxNameLength: 8 };
const CTX = { limits: LIMITS, isKnownSpecId: (id: number) => id === 0 || id === 7 };
const AT_CAP = { lane: "tag" as const, max: 2 };
const KINDS: ReportKind[] = ["tag_v3", "tag_v2", "zip_v2", "zip_v3", "vast_v3"];

// A deterministic PRNG (mulberry32), so a failure names its seed.
function rng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function chunks(bytes: Buffer, rand: () => number): Buffer[] {
  const out: Buffer[] = [];
  for (let i = 0; i < bytes.length; ) {
    const n = 1 + Math.floor(rand() * Math.min(bytes.length - i, rand() < 0.5 ? 3 : 40));
    out.push(bytes.subarray(i, i + n));
    i += n;
  }
  return out;
}

type Verdict = { error: string } | { req: unknown };

// What the request looks like to the use-cases: its fields and payload, or for a withheld one its digest.
function comparable(r: ReceivedScanRequest): unknown {
  if ("withheld" in r) return { ...r, withheld: { requestHash: r.withheld.requestHash } };
  const { zip, ...rest } = r as ScanRequest & { zip?: Uint8Array };
  return zip ? { ...rest, zip: Buffer.from(zip).toString("hex") } : rest;
}

function viaJsonParse(kind: ReportKind, body: Buffer, withheld: boolean): Verdict {
  const text = body.toString("utf8");
  if (text.trim() === "") return { error: "body: a JSON object is required" };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { error: "body: not valid JSON" };
  }
  try {
    const req = parseScanBody(kind, parsed, CTX) as ScanRequest;
    // The withheld form of the same request: its fields and the digest of the whole.
    if (withheld) {
      const { html: _h, zip: _z, ...fields } = req as ScanRequest & { html?: string; zip?: Uint8Array };
      return { req: { ...fields, withheld: { requestHash: requestHash(req) } } };
    }
    return { req: comparable(req) };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

async function viaStream(kind: ReportKind, body: Buffer, withheld: boolean, rand: () => number): Promise<Verdict> {
  try {
    const streamed = await readScanBody(Readable.from(chunks(body, rand)), { kind, limits: LIMITS, keepPayload: !withheld, contentLength: body.length });
    return { req: comparable(parseScanBody(kind, streamed, { ...CTX, ...(withheld ? { withheld: AT_CAP } : {}) })) };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

const TAG = b64("<div>ad ✓</div>");
const ZIP = b64(Buffer.from([0x50, 0x4b, 0x03, 0x04, 1, 2, 3, 0xff]));
const VAST = b64("https://ads.example.com/vast.xml?a=1");

// Bodies as text (some not JSON at all).
const BODIES: string[] = [
  JSON.stringify({ data: TAG }),
  JSON.stringify({ data: ZIP, name: "zip", spec_id: 0, workspace_id: 12 }),
  JSON.stringify({ data: VAST, name: "ünïcode 🎉", spec_id: 7 }),
  JSON.stringify({ data: TAG, targeting: { device: "mobile", language: "nl-NL,nl;q=0.9", country: "nld", page_url: "https://pub.example/p?q=1" } }),
  JSON.stringify({ data: ZIP, targeting: { device: "desktop", language: "en" } }),
  `{"data":"${TAG}","data":"${ZIP}"}`,
  `{"targeting":{"device":"mobile"},"data":"${TAG}","targeting":{"device":"desktop","device":"tablet"}}`,
  `{"d\\u0061ta":"${TAG.slice(0, 4)}\\u0041${TAG.slice(5)}","n\\u0061me":"\\ud83c\\udf89\\u00e9"}`,
  `{"data":"${TAG}","spec_id":0.0,"workspace_id":1e1}`,
  `{"data":"${TAG}","spec_id":-0,"workspace_id":0.5}`,
  `{"data":"${TAG}","spec_id":7e0,"workspace_id":12345678901234567890}`,
  `{"data":"${TAG}","workspace_id":9007199254740993}`,
  `{"data":"${TAG}","workspace_id":2251799813685248.25000000000000000000000000000000001}`,
  `{"data":"${TAG}","workspace_id":2251799813685248.25}`,
  `{"data":"${TAG}","workspace_id":1${"0".repeat(900)}e-900}`,
  `{"data":"${TAG}","spec_id":1E400,"workspace_id":-1e-400}`,
  `{"data":"${TAG}","spec_id":"0","name":null,"workspace_id":null,"targeting":null}`,
  `{"data":"${TAG}","name":{"a":[1,2,{"b":null}]},"spec_id":[],"workspace_id":true}`,
  `{"data":"${TAG}","targeting":[1],"name":"${"n".repeat(20)}"}`,
  `{"data":"${TAG}","targeting":{"device":{"x":1},"language":${"[".repeat(50)}${"]".repeat(50)}}}`,
  `{"data":"${TAG}","targeting":{"language":"${"a".repeat(300)}","page_url":"https://${"p".repeat(3000)}.example/"}}`,
  `{"data":"${TAG}","unknown":${"[".repeat(3000)}${"]".repeat(3000)},"deep":{"data":"not this one"}}`,
  ` \n\t\r{ "data" : "${TAG}" , "name" : "a\\"b\\\\c\\/d\\b\\f\\n\\r\\t" } \n`,
  `{"data":"${b64("   \n\t ")}"}`,
  `{"data":"${b64("\u00a0\u2003\ufeff")}"}`,
  `{"data":"${b64(Buffer.from([0xff, 0xfe, 0x41]))}"}`,
  `{"data":"${b64(Buffer.from([0xe2, 0x9c]))}"}`,
  `{"data":"${b64("x".repeat(65))}"}`,
  `{"data":"${b64("x".repeat(64))}"}`,
  `{"data":"${b64(Buffer.alloc(97, 0x50))}"}`,
  `{"data":"${b64("not a zip")}"}`,
  `{"data":"${b64("PK")}"}`,
  `{"data":"${b64(Buffer.from([0x50, 0x4b, 0x05, 0x06]))}"}`,
  `{"data":"${b64("ftp://x.example/")}"}`,
  `{"data":"${b64(`  https://x.example/${"u".repeat(60)}  `)}"}`,
  `{"data":"QR=="}`, `{"data":"QUJ="}`, `{"data":"QUI="}`, `{"data":"QQ=="}`, `{"data":"===="}`, `{"data":"QQ="}`,
  `{"data":"QQ==QQ=="}`, `{"data":"Q Q=="}`, `{"data":"QQ\\n=="}`, `{"data":"QUJD-_=="}`, `{"data":""}`, `{"data":"é"}`,
  `{"data":5}`, `{"data":null}`, `{"data":{"x":"${TAG}"}}`, `{"data":["${TAG}"]}`, `{}`, `{"name":"x"}`,
  `["${TAG}"]`, `"${TAG}"`, `123`, `-0.5e3`, `true`, `null`, `[]`,
  ``, `   `, `\u00a0`, `\ufeff{"data":"${TAG}"}`, `\ufeff`, `{"data":"${TAG}"}x`, `{"data":"${TAG}",}`, `{"data":"${TAG}"`,
  `{"data":"${TAG}"}}`, `{"data" "${TAG}"}`, `{data:"${TAG}"}`, `{'data':'${TAG}'}`, `{"data":"${TAG}\u0001"}`,
  `{"data":"\\x41"}`, `{"data":"\\u00G1"}`, `{"data":"${TAG}","spec_id":01}`, `{"data":"${TAG}","spec_id":1.}`,
  `{"data":"${TAG}","spec_id":.5}`, `{"data":"${TAG}","spec_id":+1}`, `{"data":"${TAG}","spec_id":1e}`, `{"data":"${TAG}","spec_id":-}`,
  `{"data":"${TAG}","spec_id":tru}`, `{"data":"${TAG}","spec_id":NaN}`, `{"data":"${TAG}","x":[1,]}`, `{"data":"${TAG}","x":[,1]}`,
  `{"data":"${TAG}"}\u00a0`, `{"data":"${TAG}"} \n `, `[1,{"a":2}]]`, `{"a":{"b":}}`, `{"data":"${TAG}","":""}`,
];

// Seeded mutations: delete, duplicate or insert a character (from JSON's punctuation, digits and base64) somewhere.
function mutate(text: string, rand: () => number): string {
  const pool = `{}[],:"\\ 0123456789-+.eE=/AQZaz\u00e9\u20ac\ud83c\udf89tfn\n`;
  const at = Math.floor(rand() * (text.length + 1));
  const r = rand();
  if (r < 0.35) return text.slice(0, at) + text.slice(at + 1);
  if (r < 0.5) return text.slice(0, at) + text.slice(at, at + 1).repeat(2) + text.slice(at + 1);
  return text.slice(0, at) + [...pool][Math.floor(rand() * [...pool].length)] + text.slice(at);
}

describe("the streamed scan body answers as JSON.parse and the validation did", () => {
  it("on hand-picked bodies, every endpoint, kept and withheld, in random chunks", async () => {
    const rand = rng(1);
    for (const text of BODIES) {
      const body = Buffer.from(text, "utf8");
      for (const kind of KINDS) {
        for (const withheld of [false, true]) {
          const expected = viaJsonParse(kind, body, withheld);
          for (let round = 0; round < 3; round++) {
            expect(await viaStream(kind, body, withheld, rand), `${kind} ${withheld ? "withheld" : "kept"}: ${text.slice(0, 120)}`).toEqual(expected);
          }
        }
      }
    }
  });

  it("on 3 000 seeded random mutations of them", async () => {
    const rand = rng(20);
    for (let i = 0; i < 3000; i++) {
      let text = BODIES[Math.floor(rand() * BODIES.length)]!;
      for (let m = 1 + Math.floor(rand() * 3); m > 0; m--) text = mutate(text, rand);
      const body = Buffer.from(text, "utf8");
      const kind = KINDS[Math.floor(rand() * KINDS.length)]!;
      const withheld = rand() < 0.5;
      expect(await viaStream(kind, body, withheld, rand), `mutation ${i} (${kind}, ${withheld ? "withheld" : "kept"}): ${JSON.stringify(text.slice(0, 200))}`).toEqual(viaJsonParse(kind, body, withheld));
    }
  });

  it("on invalid UTF-8 split across chunks", async () => {
    const rand = rng(300);
    for (let i = 0; i < 300; i++) {
      const noise = Buffer.from(Array.from({ length: 1 + Math.floor(rand() * 12) }, () => Math.floor(rand() * 256)));
      for (const body of [Buffer.concat([Buffer.from('{"name":"'), noise, Buffer.from(`","data":"${TAG}"}`)]), Buffer.concat([Buffer.from(`{"data":"${TAG}"}`), noise]), noise]) {
        for (const kind of ["tag_v3", "zip_v3"] as const) {
          expect(await viaStream(kind, body, false, rand), noise.toString("hex")).toEqual(viaJsonParse(kind, body, false));
        }
      }
    }
  });

  it("gives a withheld ad tag the digest of the whole request, whatever its text (replacement characters, escapes, astral)", async () => {
    const rand = rng(4000);
    for (let i = 0; i < 300; i++) {
      const bytes = Buffer.from(Array.from({ length: 1 + Math.floor(rand() * 60) }, () => (rand() < 0.7 ? 0x20 + Math.floor(rand() * 95) : Math.floor(rand() * 256))));
      const text = JSON.stringify({ data: bytes.toString("base64"), name: "n", spec_id: 0 });
      const body = Buffer.from(text);
      for (const kind of ["tag_v3", "tag_v2"] as const) expect(await viaStream(kind, body, true, rand)).toEqual(viaJsonParse(kind, body, true));
    }
  });
});

describe("v3 targeting (our extension)", () => {
  it("an empty or null targeting is the request without it: the same fields and the same idempotency digest as before", () => {
    for (const [kind, data] of [["tag_v3", TAG], ["zip_v3", ZIP]] as const) {
      const none = parseScanBody(kind, { data }, CTX) as ScanRequest;
      expect(none).not.toHaveProperty("targeting");
      // A zip ignores the keys it does not take (as v2): those alone are no targeting either.
      const empties: unknown[] = kind === "zip_v3" ? [{}, null, { country: "nld", page_url: 5 }] : [{}, null];
      for (const targeting of empties) {
        const same = parseScanBody(kind, { data, targeting }, CTX) as ScanRequest;
        expect(same, `${kind} ${JSON.stringify(targeting)}`).toEqual(none);
        expect(requestHash(same)).toBe(requestHash(none));
      }
      const chosen = parseScanBody(kind, { data, targeting: { device: "mobile" } }, CTX) as ScanRequest;
      expect(chosen).toMatchObject({ targeting: { device: "mobile" } });
      expect(requestHash(chosen)).not.toBe(requestHash(none));
    }
  });
});

describe("reading the body", () => {
  const read = (parts: Buffer[], contentLength?: number, limits = LIMITS) =>
    readScanBody(Readable.from(parts), { kind: "tag_v3", limits, keepPayload: true, contentLength }).then(() => "ok", (e: Error) => e.message);

  it("answers the limits as the buffered parser did: the limit, then a Content-Length the body does not match", async () => {
    const body = Buffer.from(JSON.stringify({ data: TAG }));
    const small = { ...LIMITS, maxBodyBytes: body.length - 1 };
    expect(await read([body], body.length, small)).toBe("body: larger than the limit");
    expect(await read([body], undefined, small)).toBe("body: larger than the limit");
    expect(await read([body], body.length + 1)).toBe("body: must be a JSON object");
    expect(await read([Buffer.from("{not json")], 9)).toBe("body: not valid JSON");
    // Invalid JSON over the limit: the limit answers (it is found first).
    expect(await read([Buffer.from("x".repeat(body.length))], undefined, small)).toBe("body: larger than the limit");
    expect(await read([body], body.length)).toBe("ok");
  });
});
