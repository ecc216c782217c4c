// @ts-check
// One round trip through the frame's task queue: whatever was queued for "the next task" has run when it resolves.

/** @returns {Promise<void>} */
function nextTask() {
  return new Promise((r) => setTimeout(r, 0));
}
