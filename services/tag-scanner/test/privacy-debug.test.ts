import { createMemoryArtifactSink, createOutboundPolicy } from "@cva/platform";
import { afterAll, beforeAll, it } from "vitest";
import { createBrowserPool, createTagScanner, type BrowserPool, type TagScanner } from "../src/index.ts";
import { PIXEL_GIF, send, startFixtureServer, tagJob } from "./helpers.ts";
let pool: BrowserPool; let scanner: TagScanner; let fixture: Awaited<ReturnType<typeof startFixtureServer>>;
beforeAll(async () => {
  fixture = await startFixtureServer({ "/px.gif": send("image/gif", PIXEL_GIF) });
  pool = createBrowserPool({ browsers: 1, slots: 2 });
  scanner = createTagScanner({ pool, artifacts: createMemoryArtifactSink(), location: "usa",
    policy: createOutboundPolicy(["127.0.0.0/8"], { resolve: async () => ["127.0.0.1"] }),
    pageHostPolicy: createOutboundPolicy(["127.0.0.0/8"], { resolve: async () => ["127.0.0.1"] }),
    consentStates: process.env.NOCONSENT ? false : true, timeouts: { renderMs: 8_000, holdMs: 1_000, stepMs: 4_000 }, logger: { info: (o, m) => console.log(m, JSON.stringify(o)), warn: console.log, error: console.log } });
}, 60_000);
afterAll(async () => { await pool?.close(); await fixture?.close(); });
it("debug", async () => {
  const port = new URL(fixture.origin).port;
  const r = await scanner.scan(tagJob(`<div style="width:300px;height:250px;background:#c00"></div><script>localStorage.setItem("uid","1");if (!navigator.globalPrivacyControl) new Image().src = "http://px.tracker.test:${port}/px.gif?e=gpc";</script>`, { pageUrl: `http://publisher.test:${port}/a.html` }));
  console.log(JSON.stringify(r.localStorage), JSON.stringify(r.privacy, (_k, v) => typeof v === "bigint" ? Number(v) : v, 1));
  console.log(fixture.seen.map((s) => s.url + " " + s.headers["sec-gpc"]));
}, 60_000);
