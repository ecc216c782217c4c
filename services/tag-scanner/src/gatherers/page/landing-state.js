// @ts-check
// What the landing document shows (landing-page.ts): whether it finished loading, where it is, the status its
// document answered with, and whether it rendered anything.

/** @returns {import("../landing-page.ts").PageState} */
function landingState() {
  const nav = /** @type {PerformanceNavigationTiming | undefined} */ (performance.getEntriesByType("navigation")[0]);
  const b = document.body;
  return { ready: document.readyState, href: location.href, title: document.title,
    status: nav && typeof nav.responseStatus === "number" ? nav.responseStatus : 0,
    rendered: !!b && (b.children.length > 0 || (b.innerText || "").trim().length > 0) };
}
