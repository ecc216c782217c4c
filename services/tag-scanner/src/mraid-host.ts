import { pageFunction } from "./gatherers/page-script.ts";

/**
 * The MRAID container: what an in-app SDK (Google Mobile Ads, AppLovin, the IAB reference containers) gives a
 * creative that loads `mraid.js`. MRAID creatives reference the file by name only (`<script src="mraid.js">`) and the
 * SDK answers that request from its own code, so without a container they throw "mraid is not defined", wait forever
 * for `ready` and paint nothing — a scan would report an in-app banner that works in every app as broken. We answer
 * any request whose file name is `mraid.js` with this script (served by interception, never fetched, left out of the
 * creative's network and weight as the SDK's file is), as an inline placement in the default state:
 *
 *  - the state machine of MRAID 3.0 (loading → default at `ready`, expand/resize/close, hidden), with `stateChange`,
 *    `ready`, `viewableChange`, `exposureChange` and `sizeChange` fired the way SDKs fire them;
 *  - `open(url)` and `playVideo(url)` open a new window, as the SDK opens the in-app browser: the click-through step
 *    sees them like any `window.open`;
 *  - position and sizes are the scan's viewport (the placement is the page); features the scan cannot provide (sms,
 *    tel, calendar, storePicture, location) are reported unsupported and their calls fire `error`, as the spec asks.
 *
 * It runs in the creative's own world like the SDK's script, so its timers are the creative's and the render watch
 * sees them. Nothing in it reaches the scanner: it is a plain script with no access to the report channel.
 */
export const MRAID_VERSION = "3.0";

/** Whether a request is for the container's script: any URL whose last path segment is `mraid.js`. */
export function isMraidScript(url: string): boolean {
  try {
    const u = new URL(url);
    if (u.protocol !== "http:" && u.protocol !== "https:") return false;
    return /(^|\/)mraid\.js$/i.test(u.pathname);
  } catch {
    return false;
  }
}

/** `MRAID_ENV` (MRAID 3.0 §"MRAID_ENV"): what the webview says about its SDK before the ad's markup runs. */
export type MraidEnv = {
  version: string;
  sdk: string;
  sdkVersion: string;
  limitAdTracking: boolean;
  coppa: boolean;
};

const MRAID_ENV: MraidEnv = { version: MRAID_VERSION, sdk: "Creative Validation API", sdkVersion: "1", limitAdTracking: true, coppa: false };

/**
 * MRAID 3.0 asks the container to define MRAID_ENV before the ad's markup runs, so that an ad (or a verification
 * script) can tell it is in an MRAID webview before it loads mraid.js; SDKs inject it at document start. The scan
 * does the same for creatives that load mraid.js (`SyntheticSite.inApp`); the container sets it too.
 */
export const MRAID_ENV_JS = `${pageFunction<[MraidEnv]>(new URL("./gatherers/page/mraid-env.js", import.meta.url), "mraidEnv")(MRAID_ENV)};`;

/**
 * Whether a creative's markup or script is written for an MRAID container: it loads `mraid.js`. Merely mentioning
 * MRAID is not enough: universal web tags test `window.mraid` to pick their path, and must keep the web one.
 */
export function mentionsMraid(text: string | Uint8Array): boolean {
  if (typeof text === "string") return /mraid\.js/i.test(text);
  // A bundle's scripts can be megabytes: searched as bytes, without decoding.
  const b = Buffer.from(text.buffer, text.byteOffset, text.byteLength);
  return b.includes("mraid.js") || b.includes("MRAID.js") || b.includes("Mraid.js");
}

/** The container's script (gatherers/page/mraid-host.js), as served for `mraid.js`. */
export const MRAID_HOST_JS = `${pageFunction<[string, MraidEnv]>(new URL("./gatherers/page/mraid-host.js", import.meta.url), "mraidHost")(MRAID_VERSION, MRAID_ENV)};\n`;
