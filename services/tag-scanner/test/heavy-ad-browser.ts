import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import puppeteer, { type Browser, type CDPSession, type Protocol } from "puppeteer-core";
import { sandboxPlan } from "../src/sandbox.ts";
import { heavyAdFromIssue, type HeavyAdOutcome } from "../src/heavy-ad/issue.ts";
import { AD_FRAME_PATH, adTaggingReady, HEAVY_AD_ARGS, HEAVY_AD_UNWANTED_DEFAULT_ARGS, installAdTaggingRuleset } from "../src/heavy-ad/ruleset.ts";

// A real Chromium, sandboxed as the scanner runs it, whose frames under AD_FRAME_PATH Chrome tags as ads, with the
// heavy-ad intervention as Chrome ships it and its privacy noise off; a loopback publisher (pub.test) and ad server
// (ads.test). For the heavy-ad tests (heavy-ad-chrome*.test.ts).
export const MB = 1024 * 1024;

export interface HeavyAdBrowser {
  browser: Browser;
  port: number;
  close(): Promise<void>;
}

/** Ad frame `?n=` downloads n bytes then posts "got n"; `?burn=` runs one busy task of that many ms then posts "burnt". */
export async function startHeavyAdBrowser(): Promise<HeavyAdBrowser> {
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    if (url.pathname === "/bytes") {
      res.writeHead(200, { "content-type": "application/octet-stream", "cache-control": "no-store" });
      return res.end(Buffer.alloc(Number(url.searchParams.get("n")), 7));
    }
    if (url.pathname.startsWith(AD_FRAME_PATH)) {
      const n = Number(url.searchParams.get("n") ?? 0);
      const burn = Number(url.searchParams.get("burn") ?? 0);
      res.writeHead(200, { "content-type": "text/html" });
      return res.end(burn > 0
        ? `<p>ad</p><script>setTimeout(() => { const e = Date.now() + ${burn}; while (Date.now() < e) {} parent.postMessage('burnt', '*'); }, 100);</script>`
        : `<p>ad</p><script>fetch('/bytes?n=${n}&r=' + Math.random()).then((r) => r.arrayBuffer()).then((b) => { parent.postMessage('got ' + b.byteLength, '*'); });</script>`);
    }
    res.writeHead(200, { "content-type": "text/html" });
    res.end(`<script>window.got = []; addEventListener('message', (e) => got.push(e.data));</script>`);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  const profile = mkdtempSync(path.join(tmpdir(), "cva-heavy-ad-"));
  // Sandboxed as the scanner runs Chromium (as root: dropped to an unprivileged user), in this process's network
  // namespace so that the two loopback hosts are reachable without the egress proxy.
  const plan = sandboxPlan(process.env.CHROMIUM_PATH ?? "/usr/bin/chromium", { ...process.env, TAG_SCANNER_NO_NETNS: "1" });
  mkdirSync(path.join(profile, "Default"));
  writeFileSync(path.join(profile, "Default", "Preferences"), "{}");
  plan.prepareProfile(profile);
  installAdTaggingRuleset(profile);
  const browser = await puppeteer.launch({
    executablePath: plan.executablePath,
    headless: true,
    userDataDir: profile,
    ignoreDefaultArgs: HEAVY_AD_UNWANTED_DEFAULT_ARGS,
    // Two hosts on loopback so the ad frame is cross-site, as a served ad is; site isolation off, as in the scanner.
    args: [...plan.args, ...HEAVY_AD_ARGS, "--disable-site-isolation-trials", "--host-resolver-rules=MAP pub.test 127.0.0.1, MAP ads.test 127.0.0.1"],
  });
  if (!(await adTaggingReady(profile))) throw new Error("Chrome did not index the seeded ad-tagging ruleset within 30 s");
  return {
    browser, port,
    async close() {
      await browser.close();
      await new Promise<void>((r) => server.close(() => r()));
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Opens the publisher page and collects its heavy-ad interventions (Audits.issueAdded) by frame. */
export async function publisherPage({ browser, port }: HeavyAdBrowser) {
  const page = await browser.newPage();
  const client: CDPSession = await page.createCDPSession();
  const outcomes: Array<HeavyAdOutcome & { frameId: string }> = [];
  client.on("Audits.issueAdded", (e: Protocol.Audits.IssueAddedEvent) => {
    const o = heavyAdFromIssue(e.issue);
    if (o) outcomes.push({ ...o, frameId: e.issue.details.heavyAdIssueDetails!.frame.frameId });
  });
  await client.send("Audits.enable");
  await page.goto(`http://pub.test:${port}/`);
  /** Adds an ad frame with the query `q` (n=bytes or burn=ms); resolves with its frame id. */
  async function adFrame(q: string): Promise<string> {
    await page.evaluate((src) => {
      const f = document.createElement("iframe");
      f.src = src;
      document.body.append(f);
    }, `http://ads.test:${port}${AD_FRAME_PATH}banner.html?${q}`);
    const frame = await page.waitForFrame((f) => f.url().includes(q), { timeout: 20_000 });
    return (frame as unknown as { _id: string })._id;
  }
  const frameStatus = async (id: string) => {
    const walk = (t: Protocol.Page.FrameTree): Protocol.Page.Frame | undefined =>
      t.frame.id === id ? t.frame : (t.childFrames ?? []).map(walk).find(Boolean);
    return walk((await client.send("Page.getFrameTree")).frameTree)?.adFrameStatus;
  };
  return { page, outcomes, adFrame, frameStatus };
}
