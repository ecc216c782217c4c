// @ts-check
// Resolves after two rendered frames (true), so that resize listeners and media queries have re-laid the page out;
// false after the fallback, for a page whose rendering is starved.

/** @param {number} fallbackMs @returns {Promise<boolean>} */
function twoFrames(fallbackMs) {
  return new Promise((r) => { requestAnimationFrame(() => requestAnimationFrame(() => r(true))); setTimeout(() => r(false), fallbackMs); });
}
