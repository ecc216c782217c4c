// The production build: one ES module per process under dist/<name>/main.js, bundled by esbuild.
//
// Why a bundle and not tsc's per-file output: the workspace packages (@cva/platform, @cva/contracts, ...) export their
// TypeScript sources, and the generated protobuf code lives in packages/contracts/src/gen (made at setup, never
// committed). Bundling our own code makes each service one file that needs neither of them at run time — only the
// third-party packages, which stay external and come from `npm ci --omit=dev` (native addons such as lightningcss,
// puppeteer's lazily required modules and pino's worker files all keep working from node_modules). Nothing is
// minified or renamed beyond what bundling needs, so stack traces stay readable without source maps.
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";
import { build, type Plugin } from "esbuild";
import { DIST, SERVICE_ENTRIES } from "./services.ts";

/** Small container helpers, bundled like the services (see scripts/container/). */
const TOOL_ENTRIES = {
  main: "scripts/container/main.ts",
  healthcheck: "scripts/container/healthcheck.ts",
} as const;

/**
 * Worker-thread entries: bundled on their own, and `new URL("./<source>.ts", import.meta.url)` in the module that
 * starts them is rewritten to the bundle (relocateAssets).
 */
const WORKER_ENTRIES = {
  "tag-scanner/image-worker": "services/tag-scanner/src/image-worker.ts",
  "media-prober/image-worker": "services/media-prober/src/image/worker.ts",
  "zip-analyzer/image-worker": "services/zip-analyzer/src/fields/image-worker.ts",
} as const;


// Node 20 is what development machines run; the image runs a newer LTS. Output for the older one runs on both.
const TARGET = "node20.18";

export interface BuildResult {
  ms: number;
  outputs: Array<{ file: string; bytes: number }>;
  assets: string[];
  /** Packages each bundle imports at run time, by bundle (what `npm ci --omit=dev` must provide). */
  externals: Map<string, string[]>;
}

// `outDir`: elsewhere than dist/ (tests build into a temporary directory).
export async function buildAll(root: string, opts: { log?: (line: string) => void; outDir?: string } = {}): Promise<BuildResult> {
  const started = performance.now();
  const out = opts.outDir ?? join(root, DIST);
  rmSync(out, { recursive: true, force: true });
  const assets: string[] = [];
  const entryPoints = Object.fromEntries(
    [...Object.entries(SERVICE_ENTRIES).map(([n, e]) => [`${n}/main`, e]), ...Object.entries(TOOL_ENTRIES), ...Object.entries(WORKER_ENTRIES)]
      .map(([n, e]) => [n, join(root, e)]),
  );
  const result = await build({
    absWorkingDir: root,
    entryPoints,
    outdir: out,
    bundle: true,
    platform: "node",
    format: "esm",
    target: TARGET,
    splitting: false,
    minify: false,
    // keepNames would wrap functions in __name(): harmless in Node, but wrong in any function text sent to a browser.
    keepNames: false,
    sourcemap: "linked",
    sourcesContent: false,
    legalComments: "none",
    logLevel: "warning",
    metafile: true,
    plugins: [externalThirdParty(), relocateAssets(root, out, assets)],
  });
  const outputs = Object.entries(result.metafile.outputs)
    .filter(([f]) => f.endsWith(".js"))
    .map(([f, o]) => ({ file: f, bytes: o.bytes }))
    .sort((a, b) => a.file.localeCompare(b.file));
  const externals = new Map(
    Object.entries(result.metafile.outputs)
      .filter(([f]) => f.endsWith(".js"))
      .map(([f, o]) => [f, [...new Set(o.imports.filter((i) => i.external && !i.path.startsWith("node:")).map((i) => i.path))].sort()]),
  );
  const ms = Math.round(performance.now() - started);
  opts.log?.(`built ${outputs.length} bundles and ${assets.length} assets in ${ms} ms`);
  return { ms, outputs, assets, externals };
}

// Our workspaces (@cva/*) are bundled; every other package is resolved from node_modules at run time.
function externalThirdParty(): Plugin {
  return {
    name: "external-third-party",
    setup(b) {
      b.onResolve({ filter: /^[^./]/ }, (args) => {
        if (args.path.startsWith("@cva/")) return undefined;
        return { path: args.path, external: true };
      });
    },
  };
}

// `new URL("./file", import.meta.url)` names a file next to the source module; in a bundle import.meta.url is the
// bundle's own URL, so such files are copied to dist/assets/ and the literal rewritten to point there. Any other use
// of import.meta.url that depends on where the source file lives fails the build, rather than the service at run time.
const ASSET_URL = /new URL\(\s*(["'])([^"']+)\1\s*,\s*import\.meta\.url\s*\)/g;
const SAFE_IMPORT_META = /createRequire\(\s*import\.meta\.url\s*\)/g;

/** Browser code kept in `page/` directories (services/tag-scanner/src/gatherers/page/): never imported by Node. */
// Code for the browser, read as text and sent to a page: a `page/` directory's scripts, and a package's `browser/`
// modules (packages/creative-kind, which the CLI imports and the console serves).
const isPageScript = (file: string) => /[\\/](page|browser)[\\/][^\\/]+\.js$/.test(file);

function relocateAssets(root: string, out: string, copied: string[]): Plugin {
  return {
    name: "relocate-assets",
    setup(b) {
      b.onLoad({ filter: /\.ts$/ }, (args) => {
        if (args.path.includes("node_modules")) return undefined;
        const source = readFileSync(args.path, "utf8");
        if (!source.includes("import.meta")) return undefined;
        const contents = source.replace(ASSET_URL, (_m, q: string, rel: string) => {
          const from = resolve(dirname(args.path), rel);
          const worker = Object.entries(WORKER_ENTRIES).find(([, e]) => join(root, e) === from);
          // Every bundle sits in dist/<name>/: the worker's bundle is one level up, then its own name.
          if (worker) return `new URL(${q}../${worker[0]}.js${q}, import.meta.url)`;
          if (!existsSync(from) || !statSync(from).isFile()) throw new Error(`${relative(root, args.path)}: asset ${rel} does not exist`);
          // Page-side scripts (a `page/` directory) are code for the browser, read as text and sent to a page: assets.
          if (/\.[cm]?[jt]s$/.test(from) && !isPageScript(from)) throw new Error(`${relative(root, args.path)}: ${rel} is code; import it instead of reading it by URL`);
          const name = `${createHash("sha256").update(relative(root, from)).digest("hex").slice(0, 8)}-${basename(from)}`;
          mkdirSync(join(out, "assets"), { recursive: true });
          copyFileSync(from, join(out, "assets", name));
          if (!copied.includes(name)) copied.push(name);
          // Every bundle sits in dist/<name>/, so dist/assets/ is one level up from all of them.
          return `new URL(${q}../assets/${name}${q}, import.meta.url)`;
        });
        const left = contents.replace(/new URL\([^)]*\.\.\/[^)]*import\.meta\.url\s*\)/g, "").replace(SAFE_IMPORT_META, "");
        if (/import\.meta\.(url|dirname|filename)/.test(left)) {
          throw new Error(`${relative(root, args.path)}: import.meta is used in a way the bundle cannot keep (only new URL("<file>", import.meta.url) and createRequire(import.meta.url) are)`);
        }
        return { contents, loader: "ts" };
      });
    },
  };
}
