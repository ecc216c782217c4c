// @ts-check
// A frame's localStorage entries (storage.ts), read from its isolated world; none when storage is denied.

/** @param {number} max @returns {Array<[string, string]>} */
function localStorageEntries(max) {
  try { return Object.entries(localStorage).slice(0, max); } catch (e) { return []; }
}
