// What one browser context costs Chromium, A/B: two Chromiums launched as the tag scanner launches its own, one with
// CHROMIUM_ARGS as they are and one with a flag set of the caller's choosing (AB_WITHOUT: a comma list of features to
// drop from --disable-features), each running the floor's unit of work (new context with a proxy as a scan's, content, screenshot, close) at
// CLIENTS at a time, alternating ROUNDS times; CPU seconds per context of each browser's whole process tree
// (bench/cpu.ts), its PSS and process count while it works (bench/memory.ts). Prints one JSON line per round and side.
//   AB_WITHOUT=WebUIOmniboxPopup,WebUIOmniboxAimPopup,WebUIOmniboxFullPopup,PreloadTopChromeWebUI node --import tsx bench/context-cost.ts
import { CHROMIUM_ARGS } from "@cva/tag-scanner/browser-pool.ts";
import { floorScan, launchFloorBrowser, type FloorBrowser } from "./browser-floor.ts";
import { AD_BOX, AD_PAGE } from "./creatives.ts";
import { countCpu, totalCpu } from "./cpu.ts";
import { runClients } from "./load.ts";
import { sampleTree } from "./memory.ts";

const CLIENTS = Number(process.env.CLIENTS ?? 4);
const CONTEXTS = Number(process.env.CONTEXTS ?? 12);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const without = new Set((process.env.AB_WITHOUT ?? "").split(",").filter(Boolean));
// Contexts as a scan makes them (prepared-page.ts): a proxy of their own, which gives each its own network context in
// Chromium (a bare context shares more with the others). The page is set by content, so nothing goes to the proxy.
const SCAN_CONTEXT = { proxyServer: "http://127.0.0.1:9", proxyBypassList: ["<-loopback>"], downloadBehavior: { policy: "deny" as const } };
const unit = (b: FloorBrowser) => async () => ({ ok: true as const, value: await floorScan(b.browser, AD_PAGE, AD_BOX, SCAN_CONTEXT) });

async function launchWithout(drop: Set<string>): Promise<FloorBrowser> {
  const i = CHROMIUM_ARGS.findIndex((a) => a.startsWith("--disable-features="));
  const kept = CHROMIUM_ARGS[i]!;
  const features = kept.slice("--disable-features=".length).split(",").filter((f) => !drop.has(f));
  CHROMIUM_ARGS[i] = `--disable-features=${features.join(",")}`;
  try {
    return await launchFloorBrowser();
  } finally {
    CHROMIUM_ARGS[i] = kept;
  }
}

const sides: Array<[string, FloorBrowser]> = [
  ["without " + [...without].join("+"), await launchWithout(without)],
  ["as configured", await launchWithout(new Set())],
];
try {
  for (const [, b] of sides) await runClients(2, 4, unit(b));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [label, b] of round % 2 ? [...sides].reverse() : sides) {
      const pid = b.browser.process()!.pid!;
      const cpu = countCpu(new Map([["floor", pid]]), "floor");
      const mem = sampleTree(pid, 500);
      const r = await runClients(CLIENTS, CONTEXTS, unit(b));
      const c = cpu.stop();
      const m = mem.stop();
      const n = r.times.length;
      console.log(JSON.stringify({
        round, side: label, perMin: Math.round(r.perMinute * 10) / 10, cpuSPerContext: Math.round((totalCpu(c) / n) * 1000) / 1000,
        byKind: Object.fromEntries(Object.entries(c).filter(([, v]) => v > 0).map(([k, v]) => [k, Math.round((v / n) * 1000) / 1000])),
        pssMb: m && Math.round(m.pssMb), processes: m?.processes,
      }));
    }
  }
} finally {
  for (const [, b] of sides) await b.close();
}
