import { randomBytes } from "node:crypto";
import type { CDPSession, Protocol } from "puppeteer-core";
import type { Gatherer } from "../gatherers/gatherer.ts";
import { pageFunction } from "../gatherers/page-script.ts";
import { bounded } from "../util.ts";

/**
 * What the full (no_cmp) run saw the creative look for: the consent API names (`__tcfapi`, `__gpp`, `__uspapi`,
 * `__cmp`, their `…Locator` frames and `…Call` messages) and `globalPrivacyControl` in any script it ran, a GPC read
 * or a consent call posted at run time, `tamper` (the page sensor taken apart), `unscanned` (a script we could not
 * read). privacy/consent-plan.ts decides from it which consent states must be rendered.
 */
export interface ConsentSensorArtifact {
  seen: string[];
  /** Scripts of the creative scanned (each parsed script once, by V8's hash when already known). */
  scripts: number;
}

/** What the page half may report; anything else is dropped. */
const PAGE_SIGNALS: ReadonlySet<string> = new Set(["__tcfapiCall", "__gppCall", "__uspapiCall", "__cmpCall", "globalPrivacyControl", "tamper"]);

/** The names a script must contain to look a consent signal up (unless it builds them at run time: see the README). */
export const CONSENT_NAME_RE = /__(?:tcfapi|gpp|uspapi|cmp)(?:Locator|Call)?|globalPrivacyControl/g;

/** Budgets: a creative decides how many scripts it runs and how long they are. */
const MAX_SCRIPTS = 2_000;
const MAX_SOURCE = 32 * 1024 * 1024;
/** Source characters read per scan at most (a creative that eval()s megabytes in a loop): past it, `unscanned` renders all. */
const MAX_SOURCE_TOTAL = 64 * 1024 * 1024;
/** Sources already scanned, by V8's script hash and length (the same libraries recur across scans). */
const known = new Map<string, string[]>();
const MAX_KNOWN = 5_000;

const pageHalf = pageFunction<[binding: string]>(new URL("../gatherers/page/consent-sensor.js", import.meta.url), "consentSensor");

export function consentNamesIn(source: string): string[] {
  const out = new Set<string>();
  CONSENT_NAME_RE.lastIndex = 0;
  for (let m = CONSENT_NAME_RE.exec(source); m; m = CONSENT_NAME_RE.exec(source)) out.add(m[0]);
  return [...out];
}

/**
 * The consent sensor, a gatherer of the prepared page. Two halves: every script the creative's documents parse
 * (inline, external, eval'd, document.written, in any frame: CDP Debugger.scriptParsed, which the creative cannot
 * hide from) is read and searched for the consent names; the page script (page/consent-sensor.js) sees GPC reads
 * and consent calls posted at run time. Pauses are skipped (a creative's `debugger;` statement does nothing). Our own
 * isolated-world probes are not the creative's: only default-world scripts count.
 */
export function gatherConsentSensor(client: CDPSession) {
  const artifact: ConsentSensorArtifact = { seen: [], scripts: 0 };
  const binding = `__cva_${randomBytes(6).toString("hex")}`;
  const ownSource = pageHalf(binding);
  const pending: Array<Promise<void>> = [];
  let on = true;
  let sourceChars = 0;
  const note = (names: readonly string[]) => { for (const n of names) if (!artifact.seen.includes(n)) artifact.seen.push(n); };
  client.on("Runtime.bindingCalled", (e: Protocol.Runtime.BindingCalledEvent) => {
    if (!on || e.name !== binding || e.payload.length > 64) return;
    let what: unknown;
    try {
      what = JSON.parse(e.payload);
    } catch {
      return;
    }
    if (typeof what === "string" && PAGE_SIGNALS.has(what)) note([what]);
  });
  client.on("Debugger.scriptParsed", (e: Protocol.Debugger.ScriptParsedEvent) => {
    const aux = e.executionContextAuxData as { isDefault?: boolean } | undefined;
    if (!on || aux?.isDefault === false || e.length === 0 || e.scriptLanguage === "WebAssembly") return;
    if (artifact.scripts >= MAX_SCRIPTS) { note(["unscanned"]); return; }
    artifact.scripts++;
    const key = `${e.hash}:${e.length}`;
    const hit = known.get(key);
    if (hit) { note(hit); return; }
    sourceChars += e.length ?? 0;
    if ((e.length ?? 0) > MAX_SOURCE || sourceChars > MAX_SOURCE_TOTAL) { note(["unscanned"]); return; }
    pending.push(client.send("Debugger.getScriptSource", { scriptId: e.scriptId }).then(({ scriptSource }) => {
      if (scriptSource === ownSource) return;
      const names = consentNamesIn(scriptSource);
      if (known.size >= MAX_KNOWN) known.delete(known.keys().next().value!);
      known.set(key, names);
      note(names);
    }, () => { if (on) note(["unscanned"]); }));
  });
  return {
    name: "consent-sensor",
    artifact,
    async start() {
      await Promise.all([
        client.send("Debugger.enable", { maxScriptsCacheSize: 64 * 1024 * 1024 }),
        client.send("Debugger.setSkipAllPauses", { skip: true }),
        client.send("Runtime.addBinding", { name: binding }),
        client.send("Page.addScriptToEvaluateOnNewDocument", { source: ownSource }),
      ]);
    },
    /**
     * What the creative looked for until now, once the scripts parsed so far are read (bounded by `ms`: a script not
     * read in time counts as `unscanned`, which renders every state).
     */
    async settle(ms: number): Promise<string[]> {
      const until = Date.now() + ms;
      // A round trip into the page first: CDP delivers a session's events before the answers that follow them, so the
      // binding calls and scriptParsed events the page emitted until now are in (a loaded machine queues them).
      await bounded(client.send("Runtime.evaluate", { expression: "0", returnByValue: true }), ms, undefined);
      const all = Promise.all(pending.splice(0));
      if ((await bounded(all.then(() => true), Math.max(0, until - Date.now()), false)) === false) note(["unscanned"]);
      return [...artifact.seen];
    },
    /**
     * Turns the Debugger domain off, once `settle` has answered (what the plan needs is read): while any debugger is
     * on, V8 clears its compilation cache and compiles every script anew, so axe-core (550 KB, the accessibility
     * phase) would be compiled again in each frame instead of once per renderer (measured at load 25: a second
     * frame's load 1.6 s with the Debugger on, 0.8 s off — the rest is sending the source). Scripts parsed after
     * this are no longer read; a creative's `debugger;` statement still does nothing (no debugger is attached).
     */
    async release(ms: number): Promise<void> {
      on = false;
      await bounded(client.send("Debugger.disable"), ms, undefined);
    },
    /** The creative's part is over: what the click-through's landing page runs is not the creative's. */
    endCreative() {
      on = false;
    },
    stop() {
      on = false;
    },
  } satisfies Gatherer<ConsentSensorArtifact> & Record<string, unknown>;
}
