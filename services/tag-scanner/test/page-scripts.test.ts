// The page-side scripts (src/gatherers/page/*.js) on their own: every file is type-checked and read by a gatherer,
// parameters reach the page as data, and each script does in a real Chromium what its gatherer relies on — outside
// a scan, so a failure names the script rather than a report field.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Script } from "node:vm";
import puppeteer, { type Browser, type CDPSession, type Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { instrumentSource, pingEventOf, type PageSignal, type RealmReport } from "../src/gatherers/instrument.ts";
import { pageFunction } from "../src/gatherers/page-script.ts";
import type { FrameMotion } from "../src/gatherers/render-watch.ts";
import { MRAID_ENV_JS, MRAID_HOST_JS } from "../src/mraid-host.ts";
import { send, startFixtureServer } from "./helpers.ts";

const src = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../src");
const pageDir = path.join(src, "gatherers/page");
const pageFiles = readdirSync(pageDir).filter((f) => f.endsWith(".js"));
const page$ = (file: string) => new URL(`../src/gatherers/page/${file}`, import.meta.url);

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(path.join(dir, e.name)) : e.name.endsWith(".ts") ? [path.join(dir, e.name)] : []);
}

describe("page scripts as files", () => {
  it("are type-checked (// @ts-check first) and each is read by a module of the scanner", () => {
    expect(pageFiles.length).toBeGreaterThanOrEqual(10);
    const readers = sources(src).map((f) => readFileSync(f, "utf8")).join("\n");
    for (const f of pageFiles) {
      expect(readFileSync(path.join(pageDir, f), "utf8").startsWith("// @ts-check\n"), f).toBe(true);
      expect(readers.includes(`/page/${f}", import.meta.url)`), `${f} is read by no module`).toBe(true);
    }
  });

  it("make expressions that parse, with parameters passed as data", () => {
    const hostile = `x"); globalThis.pwned = 1; ("\u2028</script>`;
    const made = instrumentSource(hostile);
    expect(() => new Script(made)).not.toThrow();
    // The name is one JSON literal in the call, nothing of it outside.
    expect(made.endsWith(`return instrument(${JSON.stringify(hostile)}, ${JSON.stringify(pingEventOf(hostile))}, 60000);\n})()`)).toBe(true);
    for (const s of [MRAID_HOST_JS, MRAID_ENV_JS]) expect(() => new Script(s)).not.toThrow();
    expect(() => pageFunction(page$("layout.js"), "nothingCalledThis")).toThrow(/does not declare function nothingCalledThis/);
  });

  it("run in a scope of their own: nothing is left in the page's globals (pure parts, in Node)", () => {
    const sandbox = { localStorage: { a: "1", b: "2" } } as Record<string, unknown>;
    const entries = new Script(pageFunction<[number]>(page$("local-storage.js"), "localStorageEntries")(1)).runInNewContext(sandbox);
    expect(entries).toEqual([["a", "1"]]);
    expect(Object.keys(sandbox)).toEqual(["localStorage"]);
    // Storage denied (an opaque origin throws on access): nothing, no exception.
    const denied = {};
    Object.defineProperty(denied, "localStorage", { get: () => { throw new Error("SecurityError"); } });
    expect(new Script(pageFunction<[number]>(page$("local-storage.js"), "localStorageEntries")(200)).runInNewContext(denied)).toEqual([]);
  });
});

describe("page scripts in Chromium", () => {
  let browser: Browser;
  let page: Page;
  let client: CDPSession;
  let fixture: Awaited<ReturnType<typeof startFixtureServer>>;

  beforeAll(async () => {
    fixture = await startFixtureServer({
      "/": send("text/html", "<!doctype html><body><p>landing</p></body>"),
      "/blank": send("text/html", "<!doctype html><body></body>"),
    });
    browser = await puppeteer.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox", "--headless=new", "--disable-gpu"] });
    page = await browser.newPage();
    client = await page.createCDPSession();
    await client.send("Page.enable");
    await client.send("Runtime.enable");
  });
  afterAll(async () => {
    await browser?.close();
    await fixture?.close();
  });

  /** A new document (new-document scripts run, globals start afresh). */
  const blank = () => page.goto(`${fixture.origin}/blank`, { waitUntil: "load" });

  /** Evaluates `expression` in the top frame's isolated world, as the probes run. */
  async function isolated<T>(expression: string, awaitPromise = false): Promise<T> {
    const { frameTree } = await client.send("Page.getFrameTree");
    const { executionContextId } = await client.send("Page.createIsolatedWorld", { frameId: frameTree.frame.id, worldName: "cva-probe" });
    const r = await client.send("Runtime.evaluate", { expression, contextId: executionContextId, returnByValue: true, awaitPromise });
    if (r.exceptionDetails) throw new Error(`probe threw: ${r.exceptionDetails.exception?.description ?? r.exceptionDetails.text}`);
    return r.result.value as T;
  }

  it("instrument.js: hides its binding, and reports timers, intervals, document.write and other realms, even after the page replaced the natives", async () => {
    const binding = `__cva_test_${Math.random().toString(36).slice(2, 8)}`;
    const messages: PageSignal[] = [];
    const onBinding = (e: { name: string; payload: string }) => { if (e.name === binding) messages.push(JSON.parse(e.payload) as PageSignal); };
    client.on("Runtime.bindingCalled", onBinding);
    try {
      await client.send("Runtime.addBinding", { name: binding });
      const { identifier } = await client.send("Page.addScriptToEvaluateOnNewDocument", { source: instrumentSource(binding) });
      await blank();
      await client.send("Page.removeScriptToEvaluateOnNewDocument", { identifier });
      const motion = () => messages.filter((m): m is RealmReport => m.t === "motion");
      const until = async (what: string, ok: () => boolean) => {
        for (const end = Date.now() + 10_000; !ok();) {
          if (Date.now() > end) throw new Error(`no ${what} in ${JSON.stringify(messages.slice(-5))}`);
          await new Promise((r) => setTimeout(r, 20));
        }
      };
      expect(await page.evaluate((b) => [typeof (window as unknown as Record<string, unknown>)[b], Object.keys(window).includes(b)], binding)).toEqual(["undefined", false]);
      await page.evaluate(() => {
        // The creative breaks the natives the script uses after it was installed: reports are unchanged.
        JSON.stringify = () => "{}";
        Reflect.apply = () => undefined;
        setTimeout(() => {}, 5_000);
        setInterval(() => {}, 200);
        document.write("<p>written</p>");
      });
      await until("pending timeout and interval", () => motion().some((m) => m.pending >= 1 && m.intervals === 1 && m.intervalPeriod === 200));
      await until("document.write", () => messages.some((m) => m.t === "dw"));
      // A friendly iframe reached through contentWindow is its own realm, instrumented before the page's next statement.
      await page.evaluate(() => {
        const f = document.createElement("iframe");
        document.body.appendChild(f);
        f.contentWindow!.setTimeout(() => {}, 3_000);
      });
      const top = motion().at(-1)!.realm;
      await until("a second realm's pending timeout", () => motion().some((m) => m.realm !== top && m.pending === 1));
      // The ping asks every realm for a report at once.
      const before = motion().length;
      await isolated(`dispatchEvent(new Event(${JSON.stringify(pingEventOf(binding))}))`);
      await until("a report on the ping", () => motion().length > before);
    } finally {
      client.off("Runtime.bindingCalled", onBinding);
    }
  });

  it("motion.js: CSS animations with their delay, infinite ones, and SMIL with a whitespace-padded repeatDur", async () => {
    await page.setContent(`<!doctype html><style>@keyframes k { to { transform: translateX(50px) } }</style>
<div style="width:40px;height:40px;background:#c00;animation:k 2s 1s linear"></div>
<div style="width:40px;height:40px;background:#00c;animation:k 1s linear infinite"></div>
<svg width="100" height="50"><rect width="10" height="10"><animate attributeName="x" from="0" to="90" dur="1s" repeatDur=" 3s"/></rect></svg>
<svg id="paused" width="100" height="50"><rect width="10" height="10"><animate attributeName="x" from="0" to="90" dur="1s" repeatDur=" 3s" fill="remove"/></rect></svg>`, { waitUntil: "load" });
    // Chromium strips the whitespace of a clock value: " 3s" is three repeats of the 1 s animation (seen on a paused
    // copy, which the probe then skips), and so for the probe.
    const at = await page.evaluate(() => {
      const svg = document.getElementById("paused") as unknown as SVGSVGElement;
      svg.pauseAnimations();
      svg.setCurrentTime(2.5);
      return (svg.querySelector("rect") as SVGRectElement).x.animVal.value;
    });
    expect(at).toBeCloseTo(45, 0);
    const m = await isolated<FrameMotion>(pageFunction<[string | null, boolean]>(page$("motion.js"), "motionProbe")(null, true), true);
    const css = m.anims.filter((a) => a.period === 2_000);
    expect(css).toHaveLength(1);
    expect(css[0]!.remaining).toBeGreaterThan(1_000); // delay and duration both still ahead
    expect(css[0]!.remaining).toBeLessThanOrEqual(3_000);
    expect(m.anims.some((a) => a.remaining === -1 && a.period === 1_000 && a.visible)).toBe(true);
    const smil = m.anims.filter((a) => a.period === 1_000 && a.remaining >= 0);
    expect(smil).toHaveLength(1);
    expect(smil[0]!.remaining).toBeGreaterThan(1_000);
    expect(smil[0]!.remaining).toBeLessThanOrEqual(3_000);
  });

  it("mraid-host.js and mraid-env.js: the container's state machine, and MRAID_ENV only where none is defined", async () => {
    await blank();
    await page.evaluate(`window.MRAID_ENV = { sdk: "theirs" }; ${MRAID_ENV_JS}`);
    expect(await page.evaluate("window.MRAID_ENV.sdk")).toBe("theirs");
    await blank();
    await page.evaluate(MRAID_ENV_JS);
    expect(await page.evaluate("window.MRAID_ENV")).toMatchObject({ version: "3.0", limitAdTracking: true });
    await page.evaluate(`window.seen = []; ${MRAID_HOST_JS}; mraid.addEventListener("stateChange", (s) => seen.push(s)); mraid.addEventListener("error", (m, a) => seen.push("error:" + a));`);
    await page.waitForFunction(() => (window as unknown as { mraid: { getState(): string } }).mraid.getState() === "default");
    const states = await page.evaluate(() => {
      const w = window as unknown as { mraid: Record<string, (...a: unknown[]) => unknown>; seen: string[] };
      w.mraid.expand!();
      w.mraid.close!();
      w.mraid.resize!(); // no resize properties yet: an error event
      w.mraid.close!();
      return { seen: w.seen, version: w.mraid.getVersion!(), sms: w.mraid.supports!("sms"), video: w.mraid.supports!("inlineVideo") };
    });
    expect(states).toEqual({ seen: ["default", "expanded", "default", "error:resize", "hidden"], version: "3.0", sms: false, video: true });
  });

  it("slot-width.js, two-frames.js, next-task.js, landing-state.js and local-storage.js", async () => {
    await page.setContent(`<!doctype html><iframe width="300" height="250"></iframe>`, { waitUntil: "load" });
    const setSlot = pageFunction<[number]>(page$("slot-width.js"), "setSlotWidth");
    expect(await isolated<boolean>(setSlot(280))).toBe(true);
    expect(await page.evaluate(() => { const f = document.querySelector("iframe")!; return [f.width, f.style.width]; })).toEqual(["280", "280px"]);
    await page.setContent("<!doctype html><p>no slot</p>", { waitUntil: "load" });
    expect(await isolated<boolean>(setSlot(280))).toBe(false);
    expect(await isolated<boolean>(pageFunction<[number]>(page$("two-frames.js"), "twoFrames")(5_000), true)).toBe(true);
    expect(await isolated<undefined>(pageFunction(page$("next-task.js"), "nextTask")(), true)).toBeUndefined();

    await page.goto(`${fixture.origin}/`, { waitUntil: "load" });
    expect(await page.evaluate(pageFunction(page$("landing-state.js"), "landingState")())).toEqual({
      ready: "complete", href: `${fixture.origin}/`, title: "", status: 200, rendered: true,
    });
    await page.evaluate(() => { localStorage.setItem("k", "v"); });
    expect(await isolated(pageFunction<[number]>(page$("local-storage.js"), "localStorageEntries")(200))).toEqual([["k", "v"]]);
  });
});
