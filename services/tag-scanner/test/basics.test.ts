import { createMemoryArtifactSink, createOutboundPolicy } from "@cva/platform";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBrowserPool, createTagScanner, type BrowserPool, type TagScanner } from "../src/index.ts";
import { PIXEL_GIF, send, startFixtureServer, tagJob } from "./helpers.ts";

let pool: BrowserPool;
let scanner: TagScanner;
let fixture: Awaited<ReturnType<typeof startFixtureServer>>;
const artifacts = createMemoryArtifactSink();

beforeAll(async () => {
  pool = createBrowserPool({ browsers: 1, slots: 2 });
  scanner = createTagScanner({
    pool, artifacts, location: "usa",
    policy: createOutboundPolicy(["127.0.0.0/8", "::1/128"]),
    timeouts: { renderMs: 12_000, quietMs: 1_200, stepMs: 4_000, landingMs: 6_000 },
  });
  fixture = await startFixtureServer({
    "/pixel.gif": send("image/gif", PIXEL_GIF),
    "/script.js": send("text/javascript", "window.__fromFixture = 1; console.warn('fixture warn');"),
  });
});
afterAll(async () => {
  await fixture?.close();
  await pool?.close();
});

describe("tag scanner basics", () => {
  it("scans a 300x250 creative with document.write, alert, cookies, storage, console", async () => {
    const o = fixture.origin;
    const html = `<div id="ad" style="width:300px;height:250px;background:#c00"></div>
<script>
document.write('<p style="margin:0">hi</p>');
document.cookie = "js_cookie=1; path=/";
localStorage.setItem("k1", "v1");
console.error("boom error");
alert("hello");
confirm("sure?");
</script>
<script src="${o}/script.js"></script>
<img src="${o}/pixel.gif" width="1" height="1" style="position:absolute;left:0;top:0">
<img src="${o}/missing.png">
<script>setTimeout(() => { throw new Error("late uncaught") }, 10)</script>`;
    const r = await scanner.scan(tagJob(html));
    console.log(JSON.stringify(r, (_k, v) => (typeof v === "bigint" ? Number(v) : v), 2).slice(0, 6000));
    expect(r.usesDocumentWrite).toBe(true);
    expect(r.dialogs.map((d) => d.type)).toEqual(["alert", "confirm"]);
  });
});
