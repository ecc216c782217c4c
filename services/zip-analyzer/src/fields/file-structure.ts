import type { ExtractedFile } from "../extract/extract.ts";
import { classifyFile, type FileType } from "./file-type.ts";

export interface FileEntry {
  /** Path as stored in the zip (so with the top-level folder, when there is one). */
  name: string;
  /** Uncompressed size. */
  bytes: number;
  type: FileType;
}

/** Every extracted file, in archive order. Directories and OS metadata (__MACOSX/, .DS_Store) are not files here. */
export function fileStructure(files: readonly ExtractedFile[]): FileEntry[] {
  return files.map((f) => ({ name: f.name, bytes: f.data.length, type: classifyFile(f.name, f.data, f.archive) }));
}
