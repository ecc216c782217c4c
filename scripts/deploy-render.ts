// `npm run -s deploy:render`: writes the generated deployment files (scripts/lib/deploy/render.ts lists them).
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { renderDeployFiles } from "./lib/deploy/render.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
for (const [path, content] of renderDeployFiles(root)) {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), content);
  process.stdout.write(`wrote ${path}\n`);
}
