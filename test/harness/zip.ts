import { buildZip as buildEntries } from "../../services/zip-analyzer/test/zip-writer.ts";

// Honest archives from a name → content map, for end-to-end tests and the bench. The zip-analyzer's test writer is
// the one implementation (it can also craft hostile archives byte by byte).
export function buildZip(files: Record<string, string | Buffer>): Buffer {
  return buildEntries(Object.entries(files).map(([name, data]) => ({ name, data })));
}
