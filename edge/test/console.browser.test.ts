// The web console in headless Chromium against the edge app with in-memory fakes: nothing refused by its CSP,
// axe-core clean in each state it can be in, usable from the keyboard alone, the key kept in this tab's
// sessionStorage only, each kind sent to its endpoint (a server without the endpoint shows its own message), a tag
// with targeting sent to v3 with it (our extension) and shown on its report page, and the API's errors shown as the API words them. The real stack runs it in test/e2e/console-cases.ts.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Device } from "@cva/contracts";
import puppeteer, { type Browser, type Page } from "puppeteer-core";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { axeViolations } from "./axe.ts";
import { makeApp } from "./fakes.ts";

const CHROMIUM = "/usr/bin/chromium";

describe.skipIf(!existsSync(CHROMIUM))("web console in headless Chromium", () => {
  let browser: Browser;
  let ctx: Awaited<ReturnType<typeof makeApp>>;
  let base: string;
  let dir: string;
  let page: Page;
  let problems: string[];

  beforeAll(async () => {
    // Report URLs must point at the listening address, known only after listen: probe a free port first.
    const probe = await makeApp();
    await probe.app.listen({ port: 0, host: "127.0.0.1" });
    const port = (probe.app.server.address() as { port: number }).port;
    await probe.app.close();
    base = `http://127.0.0.1:${port}`;
    ctx = await makeApp({ config: { ...probe.deps.config, publicBaseUrl: base } });
    await ctx.app.listen({ port, host: "127.0.0.1" });
    dir = mkdtempSync(path.join(tmpdir(), "cva-console-"));
    browser = await puppeteer.launch({ executablePath: CHROMIUM, args: ["--headless=new", "--no-sandbox", "--disable-gpu"] });
  });

  afterAll(async () => {
    await browser?.close();
    await ctx?.app.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  beforeEach(async () => {
    await page?.close();
    page = await browser.newPage();
    problems = [];
    // A CSP refusal, a Trusted Types refusal or any script error shows up here.
    page.on("console", (m) => {
      if (m.type() === "error") problems.push(m.text());
    });
    page.on("pageerror", (e) => problems.push(String(e)));
    await page.goto(`${base}/`, { waitUntil: "load" });
    await page.waitForFunction(() => document.getElementById("endpoint")?.textContent !== "");
  });

  const text = (sel: string) => page.$eval(sel, (e) => (e as HTMLElement).innerText);
  const visible = (sel: string) => page.$eval(sel, (e) => !(e as HTMLElement).hidden && (e as HTMLElement).offsetParent !== null);

  it("loads with nothing refused by its CSP, and axe-core finds no serious or critical violation in any state", async () => {
    expect(await page.title()).toMatch(/Scan a creative/);
    expect(await axeViolations(page)).toEqual([]);
    // The file panel with a file chosen, and targeting disabled for a kind that has none.
    await page.click('input[name="source"][value="file"]');
    const mp4 = path.join(dir, "spot.mp4");
    writeFileSync(mp4, Buffer.concat([Buffer.from([0, 0, 0, 0x20]), Buffer.from("ftypisom"), Buffer.alloc(64)]));
    await (await page.$("input#file"))!.uploadFile(mp4);
    await page.waitForFunction(() => /video file/.test(document.getElementById("file-kind")!.textContent ?? ""));
    expect(await page.$eval("#targeting", (e) => (e as HTMLFieldSetElement).disabled)).toBe(true);
    expect(await axeViolations(page)).toEqual([]);
    // The error panel and a field error.
    await page.click("#scan");
    await page.waitForFunction(() => document.getElementById("api-key")!.getAttribute("aria-invalid") === "true");
    await page.type("#api-key", "key-a");
    await page.click("#scan");
    await page.waitForFunction(() => !document.getElementById("error")!.hidden);
    expect(await axeViolations(page)).toEqual([]);
    // The API's own 4xx answers to the provoked errors are logged by the browser as failed loads; nothing else may be.
    expect(problems.filter((p) => !/status of 4\d\d/.test(p))).toEqual([]);
  });

  it("works from the keyboard alone: an ad tag scanned, then its report page; the key stays in this tab's sessionStorage", async () => {
    // Tab from the top of the page to the key field, the tag field and the Scan button, typing as a user would.
    const tabTo = async (id: string) => {
      for (let i = 0; i < 40; i++) {
        await page.keyboard.press("Tab");
        if (await page.evaluate((want) => document.activeElement?.id === want, id)) return;
      }
      throw new Error(`#${id} is not reachable with Tab`);
    };
    await tabTo("api-key");
    await page.keyboard.type("key-a");
    await tabTo("tag");
    await page.keyboard.type('<div style="width:300px;height:250px">ad</div>');
    await tabTo("name");
    await page.keyboard.type("Keyboard tag");
    expect(await text("#endpoint")).toBe("Sends POST /v3/scanTag.");
    await tabTo("scan");
    expect(problems).toEqual([]);
    await Promise.all([page.waitForNavigation({ waitUntil: "load" }), page.keyboard.press("Enter")]);
    expect(new URL(page.url()).pathname).toMatch(/^\/r\/[A-Za-z0-9_-]+$/);
    expect(await page.evaluate(() => document.body.innerText)).toContain("Keyboard tag");
    // What went to the API: the tag's bytes, base64, v3 fields.
    const job = ctx.dispatcher.jobs.at(-1)!;
    expect(job.input.case).toBe("tag");
    expect(job.input.case === "tag" && job.input.value.creative.value).toBe('<div style="width:300px;height:250px">ad</div>');
    expect(await page.evaluate(() => ({ key: sessionStorage.getItem("cva.console.apiKey"), local: localStorage.length, cookies: document.cookie }))).toEqual({ key: "key-a", local: 0, cookies: "" });
    // Back on the console, the scan is listed with its report link and the key is still filled in.
    await page.goBack({ waitUntil: "load" });
    await page.waitForFunction(() => document.querySelectorAll("#history-list a").length === 1);
    expect(await page.$eval("#history-list a", (a) => [(a as HTMLAnchorElement).textContent, new URL((a as HTMLAnchorElement).href).pathname])).toEqual(["Keyboard tag", expect.stringMatching(/^\/r\//)]);
    expect(await page.$eval("#api-key", (e) => (e as HTMLInputElement).value)).toBe("key-a");
  });

  it("shows progress while the scan runs — what it is doing, the seconds, focus on it — then the report page", async () => {
    // The fake worker answers only when the test lets it: the console is seen mid-scan, not raced.
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const submit = ctx.dispatcher.submit.bind(ctx.dispatcher);
    ctx.dispatcher.submit = async (job) => {
      await gate;
      return submit(job);
    };
    try {
      await page.type("#api-key", "key-a");
      await page.type("#tag", "<p>slow ad</p>");
      await page.click("#scan");
      await page.waitForFunction(() => !document.getElementById("progress")!.hidden && /\d+ s/.test(document.getElementById("progress-time")!.textContent ?? ""), { timeout: 90_000 });
      expect(await text("#progress-title")).toBe("Scanning the ad tag…");
      expect(await text("#progress-status")).toMatch(/\S/);
      expect(await page.evaluate(() => document.activeElement?.id)).toBe("progress-title");
      expect(await page.$eval("#scan", (b) => (b as HTMLButtonElement).disabled || b.getAttribute("aria-disabled") === "true")).toBe(true);
      expect(await axeViolations(page)).toEqual([]);
      await Promise.all([page.waitForNavigation({ waitUntil: "load" }), Promise.resolve().then(release)]);
      expect(new URL(page.url()).pathname).toMatch(/^\/r\/[A-Za-z0-9_-]+$/);
    } finally {
      release();
      ctx.dispatcher.submit = submit;
    }
    // A bound, not an expectation: seconds alone, a minute and more on a loaded 2-core machine (load 48 seen).
  }, 180_000);

  it("asks for a missing key at its field, and shows the API's authentication_error for a wrong one", async () => {
    await page.type("#tag", "<p>ad</p>");
    await page.click("#scan");
    await page.waitForFunction(() => document.activeElement?.id === "api-key");
    expect(await text("#api-key-error")).toBe("Enter your API key.");
    expect(await page.$eval("#api-key", (e) => e.getAttribute("aria-describedby"))).toContain("api-key-error");
    await page.type("#api-key", "not-a-key");
    await page.click("#scan");
    await page.waitForFunction(() => !document.getElementById("error")!.hidden);
    expect(await text("#error-type")).toBe("authentication_error");
    expect(await text("#error-message")).toMatch(/X-ApiKey/);
    expect(await text("#error-hint")).toMatch(/Check the API key/);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("error-title");
  });

  it("sends a video to /v3/scanVideo and shows the server's own error as it answered", async () => {
    await page.type("#api-key", "key-a");
    await page.click('input[name="source"][value="file"]');
    const mp4 = path.join(dir, "preroll.mp4");
    writeFileSync(mp4, Buffer.concat([Buffer.from([0, 0, 0, 0x20]), Buffer.from("ftypmp42"), Buffer.alloc(2048)]));
    await (await page.$("input#file"))!.uploadFile(mp4);
    await page.waitForFunction(() => document.getElementById("endpoint")!.textContent === "Sends POST /v3/scanVideo.");
    expect(await text("#file-kind")).toMatch(/^preroll\.mp4 \(2\.1 KB\): video file, because its bytes are a video file\.$/);
    const answered = page.waitForResponse((r) => r.url().endsWith("/v3/scanVideo"));
    await page.click("#scan");
    const res = await answered;
    const body = (await res.json()) as { error_type: string; message: string };
    // The fake edge has no media worker: whatever it answered is shown as it answered.
    expect(res.status()).toBeGreaterThanOrEqual(400);
    await page.waitForFunction(() => !document.getElementById("error")!.hidden);
    expect(await text("#error-type")).toBe(body.error_type);
    expect(await text("#error-message")).toBe(body.message);
  });

  it("takes a dropped zip, and sends a tag with targeting to v3 with it, opening its report page", async () => {
    await page.type("#api-key", "key-a");
    // A zip dropped anywhere on the page selects the file source.
    await page.evaluate(() => {
      const dt = new DataTransfer();
      dt.items.add(new File([new Uint8Array([0x50, 0x4b, 0x05, 0x06, ...new Array(18).fill(0)])], "banner.zip", { type: "application/zip" }));
      document.querySelector("main")!.dispatchEvent(new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true }));
    });
    await page.waitForFunction(() => document.getElementById("endpoint")!.textContent === "Sends POST /v3/scanZip.");
    expect(await visible("#panel-file")).toBe(true);
    expect(await page.$eval("#country", (e) => (e as HTMLSelectElement).disabled)).toBe(true);
    await page.select("#device", "mobile");
    expect(await text("#endpoint")).toBe("Sends POST /v3/scanZip (device mobile).");
    await page.select("#device", "");

    await page.click('input[name="source"][value="tag"]');
    await page.type("#tag", "<p>ad</p>");
    await page.select("#device", "mobile");
    await page.type("#language", "nl-NL");
    await page.select("#country", "nld");
    expect(await text("#endpoint")).toBe("Sends POST /v3/scanTag (device mobile, language nl-NL, country nld).");
    expect(await axeViolations(page)).toEqual([]);
    // Checked before leaving the console: the fake report's artifact images are not served (404) on its report page.
    expect(problems).toEqual([]);
    const sent = page.waitForRequest((r) => r.url().endsWith("/v3/scanTag"));
    await Promise.all([page.waitForNavigation({ waitUntil: "load" }), page.click("#scan")]);
    expect(JSON.parse((await sent).postData() ?? "{}")).toMatchObject({ spec_id: 0, targeting: { device: "mobile", language: "nl-NL", country: "nld" } });
    expect(new URL(page.url()).pathname).toMatch(/^\/r\/[A-Za-z0-9_-]+$/);
    const job = ctx.dispatcher.jobs.at(-1)!;
    expect(job.apiVersion).toBe("v3");
    expect(job.targeting).toMatchObject({ device: Device.MOBILE, language: "nl-NL", country: "nld" });
  });
});
