// The web console and the `cva` CLI against the real stack, registered inside scans.test.ts so they share its stack
// and fixture server (a stack costs a minute of a loaded 2-core machine): the console scans an ad tag, a zip and a
// VAST URL and lands on each report page; the CLI answers 0 / 1 / 2 with JUnit and SARIF that say what the report
// says. consoleFileCases does the same for a video, an audio and an image file on file-scans.test.ts's media stack.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import puppeteer, { type Browser, type Page } from "puppeteer-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { freePort } from "@cva/platform/testing/index.ts";
import { axeViolations } from "../../edge/test/axe.ts";
import { repoRoot, type TestStack } from "../harness/stack.ts";
import { buildZip } from "../harness/zip.ts";

export interface SharedStack {
  stack: TestStack;
  key: string;
  /** Origin of the fixture server, which answers /vast.xml (a VAST inline ad with one MP4) and /pixel.gif. */
  origin: string;
}

const CLI = join(repoRoot, "packages/cli/bin/cva.mjs");

interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

function cva(args: string[], env: Record<string, string>, cwd: string): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { cwd, env: { PATH: process.env.PATH ?? "", ...env }, timeout: 240_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === "number" ? err.code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

// Every IAB test of an ad tag passes for this one: 300x250 (an IAB size), a contrasting border, nothing loaded.
const PASSING_TAG = `<div style="box-sizing:border-box;width:300px;height:250px;border:2px solid #000;background:#fff;font:16px sans-serif">all good</div>`;

/** The basic shape of SARIF 2.1.0 a code-scanning upload needs (the full schema is not shipped with the repository). */
const SARIF_SHAPE = {
  type: "object",
  required: ["version", "runs"],
  properties: {
    $schema: { type: "string", pattern: "sarif-2\\.1\\.0" },
    version: { const: "2.1.0" },
    runs: {
      type: "array",
      minItems: 1,
      items: {
        type: "object",
        required: ["tool", "results"],
        properties: {
          tool: {
            type: "object",
            required: ["driver"],
            properties: {
              driver: {
                type: "object",
                required: ["name", "rules"],
                properties: {
                  name: { type: "string", minLength: 1 },
                  version: { type: "string" },
                  informationUri: { type: "string", format: "uri" },
                  rules: { type: "array", items: { type: "object", required: ["id", "shortDescription"], properties: { id: { type: "string", minLength: 1 }, shortDescription: { type: "object", required: ["text"] } } } },
                },
              },
            },
          },
          invocations: { type: "array", items: { type: "object", required: ["executionSuccessful"], properties: { executionSuccessful: { type: "boolean" } } } },
          artifacts: { type: "array", items: { type: "object", required: ["location"], properties: { location: { type: "object", required: ["uri"] } } } },
          results: {
            type: "array",
            items: {
              type: "object",
              required: ["ruleId", "message", "kind", "level", "locations"],
              properties: {
                ruleId: { type: "string", minLength: 1 },
                ruleIndex: { type: "integer", minimum: 0 },
                kind: { enum: ["notApplicable", "pass", "fail", "review", "open", "informational"] },
                level: { enum: ["none", "note", "warning", "error"] },
                message: { type: "object", required: ["text"], properties: { text: { type: "string", minLength: 1 } } },
                locations: {
                  type: "array",
                  minItems: 1,
                  items: { type: "object", required: ["physicalLocation"], properties: { physicalLocation: { type: "object", required: ["artifactLocation"], properties: { artifactLocation: { type: "object", required: ["uri"] } } } } },
                },
                hostedViewerUri: { type: "string", format: "uri" },
              },
              // SARIF §3.27.9: a result whose kind is not "fail" has level "none".
              if: { properties: { kind: { not: { const: "fail" } } } },
              then: { properties: { level: { const: "none" } } },
            },
          },
        },
      },
    },
  },
};

/** Each <testcase> of a JUnit document: its name, and its failure message if it has one. */
function junitCases(xml: string): Array<{ name: string; failure?: string }> {
  return [...xml.matchAll(/<testcase name="([^"]*)"[^>]*?(?:\/>|>([\s\S]*?)<\/testcase>)/g)].map((m) => {
    const failure = /<failure message="([^"]*)"/.exec(m[2] ?? "")?.[1];
    return { name: m[1]!, ...(failure !== undefined ? { failure } : {}) };
  });
}

const unescapeXml = (s: string) => s.replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");

/** Registers the console and CLI cases; call inside the describe that owns the stack. */
export function consoleAndCliCases(shared: () => SharedStack): void {
  let browser: Browser;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "cva-console-e2e-"));
    browser = await puppeteer.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox", "--headless=new", "--disable-gpu"] });
  });
  afterAll(async () => {
    await browser?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Submits the form and waits for the report page it opens. */
  async function scanAndOpenReport(page: Page): Promise<string> {
    await Promise.all([page.waitForNavigation({ waitUntil: "load", timeout: 150_000 }), page.click("#scan")]).catch(async (err) => {
      const error = await page.$eval("#error", (e) => ((e as HTMLElement).hidden ? "" : (e as HTMLElement).innerText)).catch(() => "");
      throw new Error(`no report page: ${error || err}`);
    });
    expect(new URL(page.url()).pathname).toMatch(/^\/r\/[A-Za-z0-9_-]+$/);
    return page.evaluate(() => document.body.innerText);
  }

  it("the web console scans an ad tag, a zip and a VAST URL, each ending on its report page", async () => {
    const { stack, key, origin } = shared();
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on("pageerror", (e) => problems.push(String(e)));
    await page.goto(`${stack.baseUrl}/`, { waitUntil: "load" });
    expect(await axeViolations(page)).toEqual([]);
    await page.type("#api-key", key);

    await page.type("#tag", `<div style="width:300px;height:250px;background:#1a5;color:#fff">console tag</div>`);
    await page.type("#name", "Console tag");
    expect(await page.$eval("#endpoint", (e) => e.textContent)).toBe("Sends POST /v3/scanTag.");
    expect(await scanAndOpenReport(page)).toContain("Console tag");

    await page.goBack({ waitUntil: "load" });
    await page.click('input[name="source"][value="file"]');
    const zip = join(dir, "console-banner.zip");
    writeFileSync(zip, buildZip({
      "index.html": `<!doctype html><html><head><meta name="ad.size" content="width=300,height=250"><script>var clickTag = "https://advertiser.example/";</script></head><body style="margin:0"><div style="width:300px;height:250px;background:#c30">zip</div></body></html>`,
    }));
    await (await page.$("input#file"))!.uploadFile(zip);
    await page.waitForFunction(() => document.getElementById("endpoint")!.textContent === "Sends POST /v3/scanZip.");
    await page.$eval("#name", (e) => ((e as HTMLInputElement).value = ""));
    // Without a name the file's name is sent.
    expect(await scanAndOpenReport(page)).toContain("console-banner.zip");

    await page.goBack({ waitUntil: "load" });
    await page.click('input[name="source"][value="vast"]');
    await page.type("#vast-url", `${origin}/vast.xml`);
    await page.type("#name", "Console VAST");
    expect(await page.$eval("#endpoint", (e) => e.textContent)).toBe("Sends POST /v3/scanVAST.");
    expect(await scanAndOpenReport(page)).toContain("Console VAST");

    // The three scans are this tab's history, newest first, each linking its report page.
    await page.goBack({ waitUntil: "load" });
    await page.waitForFunction(() => document.querySelectorAll("#history-list a").length === 3);
    expect(await page.$$eval("#history-list a", (as) => as.map((a) => a.textContent))).toEqual(["Console VAST", "console-banner.zip", "Console tag"]);
    expect(problems).toEqual([]);
    await page.close();
  }, 300_000);

  it("cva scan: exit 0 when every test passed, JUnit with one passing case per test and the report URL", async () => {
    const { stack, key } = shared();
    writeFileSync(join(dir, "passing.html"), PASSING_TAG);
    const r = await cva(["scan", "passing.html", "--format", "junit", "--name", "passing tag"], { CVA_API_KEY: key, CVA_BASE_URL: stack.baseUrl }, dir);
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(r.stdout).toMatch(/^<\?xml version="1\.0" encoding="UTF-8"\?>\n<testsuites name="cva" tests="(\d+)" failures="0" errors="0"/);
    const jobId = /<property name="job_id" value="([^"]+)"\/>/.exec(r.stdout)![1]!;
    const report = await (await fetch(`${stack.baseUrl}/v3/reports/${jobId}`, { headers: { "x-apikey": key } })).json();
    expect(report.name).toBe("passing tag");
    expect(report.scan_results.failed).toBe(0);
    const cases = junitCases(r.stdout);
    expect(cases.length).toBe(Object.keys(report.scan_results.tests).length);
    expect(cases.every((c) => c.failure === undefined)).toBe(true);
    expect(r.stdout).toContain(`<property name="report_url" value="${report.scan_results.report_url}"/>`);
  }, 240_000);

  it("cva scan: exit 1 when a test failed, the reason as the JUnit failure message; SARIF of the same shape", async () => {
    const { stack, key, origin } = shared();
    // The pixel is loaded over http://: the ssl test fails.
    writeFileSync(join(dir, "insecure.html"), `<div style="box-sizing:border-box;width:300px;height:250px;border:2px solid #000">x<img src="${origin}/pixel.gif" width="1" height="1"></div>`);
    const junitFile = join(dir, "junit.xml");
    const r = await cva(["scan", "insecure.html", "--format", "junit", "--output", junitFile], { CVA_API_KEY: key, CVA_BASE_URL: stack.baseUrl }, dir);
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(1);
    // With --output the text summary goes to stdout: the failure, its reason, the verdict and the report link.
    expect(r.stdout).toMatch(/FAIL\s+ssl\b/);
    expect(r.stdout).toMatch(/^FAILED: \d+ failed/m);
    expect(r.stdout).toMatch(/^report: http:\/\/127\.0\.0\.1:\d+\/r\/[A-Za-z0-9_-]+$/m);
    const xml = readFileSync(junitFile, "utf8");
    const jobId = /<property name="job_id" value="([^"]+)"\/>/.exec(xml)![1]!;
    const report = await (await fetch(`${stack.baseUrl}/v3/reports/${jobId}`, { headers: { "x-apikey": key } })).json();
    const ssl = report.scan_results.tests.ssl;
    expect(ssl.result).toBe("failed");
    const sslCase = junitCases(xml).find((c) => c.name.startsWith("ssl:"));
    expect(unescapeXml(sslCase!.failure!)).toBe(ssl.message);
    expect(xml).toMatch(new RegExp(`failures="${report.scan_results.failed}"`));
    expect(xml).toContain(`report: ${report.scan_results.report_url}`);

    const s = await cva(["scan", "insecure.html", "--format", "sarif", "--spec", "0"], { CVA_API_KEY: key, CVA_BASE_URL: stack.baseUrl }, dir);
    expect(s.code, s.stderr).toBe(1);
    const sarif = JSON.parse(s.stdout);
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    const valid = ajv.validate(SARIF_SHAPE, sarif);
    expect(ajv.errors ?? [], JSON.stringify(ajv.errors)).toEqual([]);
    expect(valid).toBe(true);
    const run = sarif.runs[0];
    expect(run.results.length).toBe(Object.keys(report.scan_results.tests).length);
    expect(run.results.find((x: { ruleId: string }) => x.ruleId === "ssl")).toMatchObject({ kind: "fail", level: "error", message: { text: expect.stringMatching(/\S/) } });
    expect(run.results.filter((x: { kind: string }) => x.kind === "fail").length).toBe(run.properties.failed);
    expect(run.artifacts[0].location.uri).toBe("insecure.html");
    expect(run.results[0].hostedViewerUri).toMatch(/\/r\//);
  }, 240_000);

  it("cva scan: exit 2 with the API's error_type and message on an API error, a refused connection or no key", async () => {
    const { stack, key } = shared();
    writeFileSync(join(dir, "tag.html"), "<p>ad</p>");
    const badKey = await cva(["scan", "tag.html"], { CVA_API_KEY: "not-a-key", CVA_BASE_URL: stack.baseUrl }, dir);
    expect(badKey.code).toBe(2);
    expect(badKey.stderr).toMatch(/^cva: authentication_error: .*X-ApiKey/m);
    // A payload_error from the scan itself (an empty archive), as JUnit: one errored case saying why.
    writeFileSync(join(dir, "empty.zip"), Buffer.from("PK\x05\x06" + "\0".repeat(18), "binary"));
    const empty = await cva(["scan", "empty.zip", "--format", "junit"], { CVA_API_KEY: key, CVA_BASE_URL: stack.baseUrl }, dir);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/^cva: payload_error: .*no entries/m);
    expect(empty.stdout).toMatch(/<error message="payload_error: [^"]*no entries/);
    const closed = await freePort();
    const refused = await cva(["scan", "tag.html", "--retries", "0"], { CVA_API_KEY: key, CVA_BASE_URL: `http://127.0.0.1:${closed}` }, dir);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(`cva: network_error: could not reach http://127.0.0.1:${closed}/v3/scanTag: ECONNREFUSED\n`);
    const noKey = await cva(["scan", "tag.html"], { CVA_BASE_URL: stack.baseUrl }, dir);
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toMatch(/CVA_API_KEY/);
  }, 240_000);
}

export interface FileStack {
  stack: TestStack;
  key: string;
  /** Paths of a video (mp4 with an audio track), an audio file (wav) and an image (png) on disk. */
  files: { video: string; audio: string; image: string };
}

/**
 * The web console with the raw-file kinds, on the media stack of file-scans.test.ts: each file chosen as a person
 * would (the file input), sent to its endpoint, and its report page opened — with the pictures the scan made
 * (poster, film strip and waveform; the image itself) loaded from our artifact URLs, nothing refused by the page's
 * CSP, and axe-core clean on each report page.
 */
export function consoleFileCases(shared: () => FileStack): void {
  let browser: Browser;
  beforeAll(async () => {
    browser = await puppeteer.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox", "--headless=new", "--disable-gpu"] });
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("the web console scans a video, an audio and an image file, each ending on its report page with its pictures; axe clean", async () => {
    const { stack, key, files } = shared();
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on("console", (m) => {
      if (m.type() === "error") problems.push(m.text());
    });
    page.on("pageerror", (e) => problems.push(String(e)));
    await page.goto(`${stack.baseUrl}/`, { waitUntil: "load" });
    await page.type("#api-key", key);
    const cases = [
      { file: files.video, endpoint: "/v3/scanVideo", title: "Video report", pictures: ["img.poster", "img.wave", "img.strip"] },
      { file: files.audio, endpoint: "/v3/scanAudio", title: "Audio report", pictures: ["img.wave"] },
      { file: files.image, endpoint: "/v3/scanImage", title: "Image report", pictures: ["#image img"] },
    ];
    for (const c of cases) {
      await page.click('input[name="source"][value="file"]');
      await (await page.$("input#file"))!.uploadFile(c.file);
      await page.waitForFunction((e) => document.getElementById("endpoint")!.textContent === `Sends POST ${e}.`, {}, c.endpoint);
      await Promise.all([page.waitForNavigation({ waitUntil: "load", timeout: 150_000 }), page.click("#scan")]).catch(async (err) => {
        const error = await page.$eval("#error", (e) => ((e as HTMLElement).hidden ? "" : (e as HTMLElement).innerText)).catch(() => "");
        throw new Error(`${c.endpoint}: no report page: ${error || err}`);
      });
      expect(new URL(page.url()).pathname).toMatch(/^\/r\/[A-Za-z0-9_-]+$/);
      expect(await page.$eval(".kicker", (e) => e.textContent)).toContain(c.title);
      // Each picture decoded (a refused or missing image has naturalWidth 0).
      for (const sel of c.pictures) {
        await page.waitForFunction((s) => {
          const img = document.querySelector(s) as HTMLImageElement | null;
          return img !== null && img.complete && img.naturalWidth > 0;
        }, { timeout: 30_000 }, sel).catch(() => {
          throw new Error(`${c.title}: ${sel} not shown`);
        });
      }
      const text = await page.evaluate(() => document.body.innerText);
      // The verdict header, and the numbers in words and units (no raw field names with a unit suffix, no raw floats).
      expect(text).toMatch(/^(Passed|Failed|Passed, not every test evaluated|No guideline tests)$/m);
      expect(text).not.toMatch(/^[A-Z][a-z ]* ms\t/m);
      expect(text).not.toMatch(/\d\.\d{4,}/);
      expect(await axeViolations(page)).toEqual([]);
      await page.goBack({ waitUntil: "load" });
    }
    await page.waitForFunction(() => document.querySelectorAll("#history-list a").length === 3);
    expect(problems).toEqual([]);
    await page.close();
  }, 400_000);
}
