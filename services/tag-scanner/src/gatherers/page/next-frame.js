// @ts-check
// One round trip through the frame's rendering and task queue: a rendered frame (its animation-frame callbacks, the
// ones queued before ours included) and the task after it have run when it resolves (true); false after the fallback,
// for a page whose rendering is starved.

/** @param {number} fallbackMs @returns {Promise<boolean>} */
function nextFrame(fallbackMs) {
  return new Promise((r) => { requestAnimationFrame(() => setTimeout(() => r(true), 0)); setTimeout(() => r(false), fallbackMs); });
}
