// Regenerates the spec-set tables in README.md from src/sets (run: npm run readme -w @cva/spec-sets).
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { updateReadme } from "./doc.ts";

const path = fileURLToPath(new URL("../README.md", import.meta.url));
writeFileSync(path, updateReadme(readFileSync(path, "utf8")));
console.log(`updated ${path}`);
