// @ts-check
// A frame's localStorage entries (storage.ts), read from its isolated world; none when storage is denied.
// Keys and values are cut here, one character past what the report keeps (so storage.ts still marks the cut with
// "…"): the creative decides how large they are (up to its origin's quota, ~10 MB), and all of it would otherwise
// cross the CDP pipe every scan of the browser shares and be parsed there, for each of up to 50 frames.

const KEY_CHARS = 1001;
const VALUE_CHARS = 4097;

/** @param {number} max @returns {Array<[string, string]>} */
function localStorageEntries(max) {
  try {
    return Object.entries(localStorage).slice(0, max).map(([k, v]) => [k.slice(0, KEY_CHARS), String(v).slice(0, VALUE_CHARS)]);
  } catch (e) { return []; }
}
