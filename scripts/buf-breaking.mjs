#!/usr/bin/env node
// `buf breaking` against the released contract (.ci/proto-baseline.binpb, an image of proto/ as last released).
// Comparing against the previous commit would pass vacuously on a clean clone of main; a committed baseline makes
// every change to proto/ prove it is wire- and source-compatible. Refresh it deliberately: `npm run -s proto:baseline`.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const baseline = join(root, ".ci", "proto-baseline.binpb");
const buf = join(root, "node_modules", ".bin", "buf");
if (!existsSync(baseline)) {
  process.stderr.write("[buf breaking] no baseline image at .ci/proto-baseline.binpb\n");
  process.exit(1);
}
const r = spawnSync(buf, ["breaking", "--against", baseline], { cwd: root, stdio: "inherit" });
process.exit(r.status ?? 1);
