import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

// Where swagger-ui-dist (Apache-2.0, the Swagger UI team's prebuilt bundle) is installed: a runtime dependency of the
// edge, so the image's `npm ci --omit=dev` has it and the docs page needs nothing from the Internet.
const resolver = createRequire(import.meta.url);
const PACKAGE_JSON = resolver.resolve("swagger-ui-dist/package.json");

export const SWAGGER_UI_VERSION: string = (JSON.parse(readFileSync(PACKAGE_JSON, "utf8")) as { version: string }).version;

/** The two files the page loads, with their types; read from disk on first use (the bundle is 1.7 MB). */
export const SWAGGER_UI_FILES = {
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
  "swagger-ui.css": "text/css; charset=utf-8",
} as const;

export const swaggerUiFile = (name: keyof typeof SWAGGER_UI_FILES): Promise<Buffer> => readFile(join(dirname(PACKAGE_JSON), name));
