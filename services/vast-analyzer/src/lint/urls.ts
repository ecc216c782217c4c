import type { XmlNode } from "../xml-tree.ts";
import type { LintContext } from "./context.ts";

// The elements whose text is a URL, and what kind of URL (a player loads it, fires it, or opens it on a click).

export type UrlKind = "request" | "tracking" | "error" | "click-tracking" | "click-through" | "media" | "resource" | "verification";

const KIND: Record<string, UrlKind> = {
  vastadtaguri: "request",
  impression: "tracking",
  tracking: "tracking",
  viewable: "tracking",
  notviewable: "tracking",
  viewundetermined: "tracking",
  iconviewtracking: "tracking",
  error: "error",
  clicktracking: "click-tracking",
  customclick: "click-tracking",
  companionclicktracking: "click-tracking",
  nonlinearclicktracking: "click-tracking",
  iconclicktracking: "click-tracking",
  clickthrough: "click-through",
  companionclickthrough: "click-through",
  nonlinearclickthrough: "click-through",
  iconclickthrough: "click-through",
  mediafile: "media",
  mezzanine: "media",
  interactivecreativefile: "media",
  closedcaptionfile: "media",
  staticresource: "resource",
  iframeresource: "resource",
  javascriptresource: "verification",
  survey: "tracking",
};

export function urlKind(node: XmlNode): UrlKind | undefined {
  return KIND[node.name.toLowerCase()];
}

/** Every URL element of the document (Extension content excluded), with its kind and trimmed value. */
export function urlElements(ctx: LintContext): ReadonlyArray<{ node: XmlNode; kind: UrlKind; url: string }> {
  // About twenty rules read them: collected once per document.
  return ctx.memo("urlElements", () => {
    const out: Array<{ node: XmlNode; kind: UrlKind; url: string }> = [];
    for (const node of ctx.elements) {
      const kind = urlKind(node);
      if (kind) out.push({ node, kind, url: node.text.trim() });
    }
    return out;
  });
}
