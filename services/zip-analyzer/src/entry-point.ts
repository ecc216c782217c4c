import { ZipError } from "./errors.ts";

export const ENTRY_FILE = "index.html";

export interface EntryPoint {
  /** "" when index.html is at the zip root, else "<folder>/" — the folder that acts as the creative's root. */
  root: string;
  /** Stored path of the entry file ("index.html" or "<folder>/index.html"). */
  path: string;
}

/**
 * The creative's root is the zip root when it holds index.html; otherwise, when every file sits in one top-level
 * folder (zipping a folder instead of its contents is the commonest packaging mistake), that folder. The name must
 * be exactly "index.html": ad servers look for that file, and a creative whose main file is called otherwise (or
 * that has several candidates deeper down) is not servable as is.
 */
export function findEntryPoint(names: readonly string[]): EntryPoint {
  if (names.includes(ENTRY_FILE)) return { root: "", path: ENTRY_FILE };
  const tops = new Set(names.map((n) => (n.includes("/") ? n.slice(0, n.indexOf("/") + 1) : n)));
  if (tops.size === 1) {
    const [root] = [...tops];
    if (root.endsWith("/") && names.includes(root + ENTRY_FILE)) return { root, path: root + ENTRY_FILE };
  }
  throw new ZipError(`the zip has no ${ENTRY_FILE} at its root or in a single top-level folder`);
}

/** Path of a stored file relative to the creative's root. */
export function relativeToRoot(name: string, root: string): string {
  return name.slice(root.length);
}
