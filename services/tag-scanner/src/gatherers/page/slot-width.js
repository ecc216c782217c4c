// @ts-check
// A framed bundle's slot (the one iframe of our slot page, synthetic-origin.ts) set to a width, as a responsive
// placement would: false when there is no slot.

/** @param {number} width CSS px @returns {boolean} */
function setSlotWidth(width) {
  const f = document.querySelector("iframe");
  if (!f) return false;
  f.style.width = width + "px";
  f.width = String(width);
  return true;
}
