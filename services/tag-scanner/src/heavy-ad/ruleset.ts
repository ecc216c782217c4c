import { chownSync, existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";

// How Chrome is made to tag a creative's frame as an ad, so that its Heavy Ad Intervention applies (issue 21 §4).
//
// Chrome tags a frame as an ad when its URL matches its subresource-filter ruleset (AdTagging runs the filter in
// dry-run on every page: nothing is blocked, matching frames are marked). The ruleset arrives as the component
// "Subresource Filter Rules" (id gcmjkmgdlgnkkcocmoeiminaijmmjnii) and there is no CDP method or switch to tag a frame
// (Page.setAdBlockingEnabled only turns blocking on; Page.AdFrameStatus is read-only). But the component updater
// registers the component from what is already installed in the profile — `<profile>/Subresource Filter/Unindexed
// Rules/<version>/` with manifest.json (`ruleset_format: 1`), `Filtering Rules` and `LICENSE`
// (chrome/browser/component_updater/subresource_filter_component_installer.cc) — and Chrome indexes it at start, with
// no network. So a profile seeded with a one-rule ruleset of our own has every frame whose URL holds AD_FRAME_PATH
// tagged as a root ad frame. Measured on Debian's Chromium 156: Page.getFrameTree gives that frame
// `adFrameStatus: {adFrameType: "root", explanations: ["MatchedBlockingRule"]}`, and a 5 MB download in it is
// unloaded with Audits.issueAdded HeavyAdIssue {reason: "NetworkTotalLimit", resolution: "HeavyAdBlocked"}.
// It needs the component updater registered: without puppeteer's default --disable-component-update (HEAVY_AD_ARGS).

/** A frame whose URL contains this path is an ad frame for Chrome (the one rule of our ruleset). */
export const AD_FRAME_PATH = "/cva-heavy-ad/";

/**
 * Chrome's switches for the intervention as Chrome ships it, without its privacy noise: HeavyAdIntervention is on by
 * default (named so a build that changes that still has it); HeavyAdPrivacyMitigations adds up to ±10 % random noise
 * to the thresholds and caps interventions per origin per day, which would make a known-truth test (5 MB unloaded,
 * 3 MB not) a lottery and a second scan of the same host unmeasured.
 */
export const HEAVY_AD_ARGS = ["--enable-features=HeavyAdIntervention", "--disable-features=HeavyAdPrivacyMitigations"];

/** Puppeteer's default switch that keeps the component updater from registering the ruleset: must not be passed. */
export const HEAVY_AD_UNWANTED_DEFAULT_ARGS = ["--disable-component-update"];

// url_pattern_index.proto (components/url_pattern_index/proto/rules.proto), written by hand: one FilteringRules
// chunk holding one UrlRule, length-prefixed as UnindexedRulesetReader reads it.
const varint = (n: number): number[] => {
  const out: number[] = [];
  for (;;) {
    const b = n & 0x7f;
    n >>>= 7;
    if (n === 0) return [...out, b];
    out.push(b | 0x80);
  }
};
const intField = (field: number, v: number) => [...varint(field << 3), ...varint(v)];
const bytesField = (field: number, b: number[]) => [...varint((field << 3) | 2), ...varint(b.length), ...b];

/** The unindexed ruleset: block (= tag, in dry-run) every element type whose URL holds `pattern`, any party. */
export function unindexedRuleset(pattern: string): Uint8Array {
  const rule = [
    ...intField(1, 1), // semantics: RULE_SEMANTICS_BLOCKLIST
    ...intField(2, 1), // source_type: SOURCE_TYPE_ANY
    ...intField(3, 32767), // element_types: ELEMENT_TYPE_ALL (subdocuments included)
    ...intField(6, 1), // url_pattern_type: URL_PATTERN_TYPE_SUBSTRING
    ...intField(7, 1), // anchor_left: ANCHOR_TYPE_NONE
    ...intField(8, 1), // anchor_right: ANCHOR_TYPE_NONE
    ...bytesField(10, [...Buffer.from(pattern, "utf8")]), // url_pattern
  ];
  const rules = bytesField(1, rule); // FilteringRules.url_rules
  return Uint8Array.from([...varint(rules.length), ...rules]);
}

/**
 * Seeds a fresh Chromium profile with the ad-tagging ruleset, before the browser starts (after the sandbox plan's
 * prepareProfile: what it writes gets the profile's owner, the user Chromium runs as, who writes the indexed ruleset
 * beside it). The version is high so that it is the newest installed (the updater keeps the newest) and never the
 * one a Google server would offer.
 */
export function installAdTaggingRuleset(userDataDir: string): void {
  const top = path.join(userDataDir, "Subresource Filter");
  const base = path.join(top, "Unindexed Rules");
  const dir = path.join(base, "9999.0.0");
  mkdirSync(dir, { recursive: true });
  const files = {
    "Filtering Rules": unindexedRuleset(AD_FRAME_PATH),
    LICENSE: "One rule written by the Creative Validation API's tag scanner.\n",
    "manifest.json": JSON.stringify({ manifest_version: 2, name: "Subresource Filter Rules", version: "9999.0.0", ruleset_format: 1 }),
  };
  for (const [name, data] of Object.entries(files)) writeFileSync(path.join(dir, name), data);
  const { uid, gid } = statSync(userDataDir);
  if (process.getuid?.() === 0) for (const p of [top, base, dir, ...Object.keys(files).map((f) => path.join(dir, f))]) chownSync(p, uid, gid);
}

/**
 * Resolves when Chrome has indexed the seeded ruleset (its `Indexed Rules/<format>/9999.0.0/Ruleset Data` exists):
 * only page loads that start after that are tagged. Measured: 2–8 s after the browser starts on a loaded host.
 */
export async function adTaggingReady(userDataDir: string, timeoutMs = 30_000): Promise<boolean> {
  const indexed = path.join(userDataDir, "Subresource Filter", "Indexed Rules");
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    try {
      for (const format of readdirSync(indexed)) if (existsSync(path.join(indexed, format, "9999.0.0", "Ruleset Data"))) return true;
    } catch { /* not there yet */ }
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}
