import { attr, kids, textOf, type XmlNode } from "../xml-tree.ts";

// Defined here, beside the context that carries it, so types.ts (which names the context) does not close a cycle.
/** The VAST versions the rules know, and VMAP (1.0.1, documents say version="1.0"). */
export type LintVersion = "2.0" | "3.0" | "4.0" | "4.1" | "4.2" | "4.3" | "vmap";

// What a rule sees of one document: its version, its elements by name, and where each element is. Extension content
// is left as it is: nothing below <Extension> or <CreativeExtension> is linted (any XML may live there), and a VMAP's
// embedded VAST (<VASTAdData>) is linted as a VAST document of its own, not as part of the VMAP.

/** Elements a parent may hold several of: their paths always carry an index (`Creative[1]`). */
const REPEATABLE = new Set(
  [
    "Ad", "Error", "Impression", "Creative", "MediaFile", "Mezzanine", "InteractiveCreativeFile", "ClosedCaptionFile",
    "Tracking", "ClickTracking", "CustomClick", "Companion", "NonLinear", "Icon", "IconViewTracking", "IconClickTracking",
    "IconClickFallbackImage", "Verification", "JavaScriptResource", "ExecutableResource", "Extension", "CreativeExtension",
    "Category", "BlockedAdCategories", "UniversalAdId", "Viewable", "NotViewable", "ViewUndetermined",
    "CompanionClickTracking", "NonLinearClickTracking", "StaticResource", "IFrameResource", "HTMLResource", "AdBreak",
  ].map((n) => n.toLowerCase()),
);

/** Content that is not VAST of this document: left alone. */
const OPAQUE = new Set(["extension", "creativeextension", "vastaddata", "customaddata"]);

export interface LintContext {
  /** The rule version of the document; undefined for an unknown VAST version (then only version-independent rules run). */
  readonly version: LintVersion | undefined;
  /** The <VAST> (or <VMAP>) element linted. */
  readonly root: XmlNode;
  /** Every element named `name` (case-insensitive) below the root, document order, Extension content excluded. */
  all(name: string): XmlNode[];
  /** Elements reached from the root by child names: `select("Ad", "InLine")`. */
  select(...names: string[]): XmlNode[];
  parent(node: XmlNode): XmlNode | undefined;
  /** The nearest ancestor named `name`. */
  ancestor(node: XmlNode, name: string): XmlNode | undefined;
  /** "inline" or "wrapper": the kind of ad the element belongs to. */
  adKind(node: XmlNode): "inline" | "wrapper" | undefined;
  /** Every element of the linted subtree (Extension content excluded), document order. */
  readonly elements: readonly XmlNode[];
  pathOf(node: XmlNode): string;
  /** A value computed once per document and shared by the rules that need it (e.g. the URL elements). */
  memo<T>(key: string, compute: () => T): T;
}

/** Parent links and paths for a whole document (built once, shared by the VMAP and its embedded VAST documents). */
export interface DocumentIndex {
  parent: Map<XmlNode, XmlNode>;
  pathOf(node: XmlNode): string;
}

export function indexDocument(docRoot: XmlNode): DocumentIndex {
  const parent = new Map<XmlNode, XmlNode>();
  const stack: XmlNode[] = [docRoot];
  while (stack.length > 0) {
    const n = stack.pop()!;
    for (const c of n.children) {
      parent.set(c, n);
      stack.push(c);
    }
  }
  const paths = new Map<XmlNode, string>();
  function pathOf(node: XmlNode): string {
    const known = paths.get(node);
    if (known !== undefined) return known;
    const p = parent.get(node);
    let step = node.name;
    if (p) {
      const lower = node.name.toLowerCase();
      const same = p.children.filter((c) => c.name.toLowerCase() === lower);
      if (same.length > 1 || REPEATABLE.has(lower)) step += `[${same.indexOf(node) + 1}]`;
    }
    const full = `${p ? pathOf(p) : ""}/${step}`;
    paths.set(node, full);
    return full;
  }
  return { parent, pathOf };
}

export function createContext(root: XmlNode, version: LintVersion | undefined, index: DocumentIndex): LintContext {
  const elements: XmlNode[] = [];
  const byName = new Map<string, XmlNode[]>();
  // The ad kind of every element, inherited down the tree in the one walk (rules ask it of most elements).
  const kinds = new Map<XmlNode, "inline" | "wrapper" | undefined>();
  const visit = (n: XmlNode, kind: "inline" | "wrapper" | undefined): void => {
    for (const c of n.children) {
      elements.push(c);
      const key = c.name.toLowerCase();
      const own = key === "inline" ? "inline" : key === "wrapper" ? "wrapper" : kind;
      kinds.set(c, own);
      let list = byName.get(key);
      if (!list) byName.set(key, (list = []));
      list.push(c);
      if (!OPAQUE.has(key)) visit(c, own);
    }
  };
  visit(root, undefined);
  const memos = new Map<string, unknown>();
  const ancestor = (node: XmlNode, name: string): XmlNode | undefined => {
    const lower = name.toLowerCase();
    for (let p = index.parent.get(node); p; p = p === root ? undefined : index.parent.get(p)) {
      if (p.name.toLowerCase() === lower) return p;
    }
    return undefined;
  };
  return {
    version,
    root,
    elements,
    all: (name) => byName.get(name.toLowerCase()) ?? [],
    select: (...names) => {
      let cur = [root];
      for (const n of names) cur = cur.flatMap((c) => kids(c, n));
      return cur;
    },
    parent: (node) => (node === root ? undefined : index.parent.get(node)),
    ancestor,
    adKind: (node) => kinds.get(node),
    pathOf: index.pathOf,
    memo: <T>(key: string, compute: () => T): T => {
      if (!memos.has(key)) memos.set(key, compute());
      return memos.get(key) as T;
    },
  };
}

// Small readers rules share.

/** The attribute as written, undefined when absent (names compare case-insensitively, as players read them). */
export const attrOf = (node: XmlNode, name: string): string | undefined => attr(node, name);
export const trimmed = (node: XmlNode): string => textOf(node);
/** `<Name>` for messages. */
export const tag = (node: XmlNode | string): string => `<${typeof node === "string" ? node : node.name}>`;
