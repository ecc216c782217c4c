// @ts-check
// MRAID 3.0 asks the container to define MRAID_ENV before the ad's markup runs (mraid-host.ts): injected at document
// start in the pages of creatives written for MRAID, as SDKs do.

/** @typedef {import("../../mraid-host.ts").MraidEnv} MraidEnv */

/** @param {MraidEnv} env */
function mraidEnv(env) {
  const win = /** @type {Window & { MRAID_ENV?: MraidEnv }} */ (window);
  try { if (!win.MRAID_ENV) win.MRAID_ENV = env; } catch (e) {}
}
