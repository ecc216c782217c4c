// `npm run build`: the production bundles in dist/ (scripts/lib/build.ts says how and why).
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { buildAll } from "./lib/build.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const result = await buildAll(root);
for (const o of result.outputs) process.stdout.write(`  ${relative(root, join(root, o.file)).padEnd(34)} ${(o.bytes / 1024).toFixed(0).padStart(6)} KiB\n`);
process.stdout.write(`built ${result.outputs.length} bundles and ${result.assets.length} assets into dist/ in ${result.ms} ms\n`);
