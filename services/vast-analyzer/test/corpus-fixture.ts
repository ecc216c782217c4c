import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { corpusPath } from "@cva/platform/testing/index.ts";
import type { FixtureServer } from "./fixtures.ts";

// Where the corpus VAST files point, mapped onto the corpus itself (corpus/README.md §1 "Where URLs inside the VAST
// point"). Hosts with no local copy answer 404, as an unreachable host would: the machine running the tests has no
// internet, and the verdicts below are what a player on it would get.

export const corpus = corpusPath();
export const vastDir = corpusPath("vast");
export const IMA = "googleads-videojs-ima";
export const JONHOO = "jonhoo-vast-vmap";

export function listXml(dir: string = vastDir): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) out.push(...listXml(p));
    else if (name.endsWith(".xml")) out.push(path.relative(vastDir, p).split(path.sep).join("/"));
  }
  return out.sort();
}

/** Reads a file below root only; anything else is undefined. */
export function readBelow(root: string, rel: string): Buffer | undefined {
  const p = path.resolve(root, rel);
  if (!p.startsWith(root + path.sep) || !existsSync(p) || !statSync(p).isFile()) return undefined;
  return readFileSync(p);
}

const MIME: Record<string, string> = { xml: "application/xml", mp4: "video/mp4", webm: "video/webm", png: "image/png" };

/** Serves /vast/<rel> and /media/<rel> from the corpus; anything else 404. */
export function corpusHandler(): (req: import("node:http").IncomingMessage, res: import("node:http").ServerResponse) => void {
  return (req, res) => {
    let urlPath: string;
    try {
      urlPath = decodeURIComponent((req.url ?? "/").split("?")[0] ?? "/");
    } catch {
      return void res.writeHead(404, { "content-type": "text/plain" }).end("not found");
    }
    let file: Buffer | undefined;
    if (urlPath.startsWith(`/vast/${JONHOO}/`)) {
      const at = urlPath.lastIndexOf("test/assets/");
      file = at >= 0 ? readBelow(path.join(vastDir, JONHOO), urlPath.slice(at)) : readBelow(vastDir, urlPath.slice("/vast/".length));
    } else if (urlPath.startsWith("/vast/")) file = readBelow(vastDir, urlPath.slice("/vast/".length));
    else if (urlPath.startsWith("/media/")) file = readBelow(path.join(corpus, "media"), urlPath.slice("/media/".length));
    if (!file) return void res.writeHead(404, { "content-type": "text/plain" }).end("not found");
    const ext = /\.([a-z0-9]+)$/i.exec(urlPath)?.[1]?.toLowerCase() ?? "";
    res.writeHead(200, { "content-type": MIME[ext] ?? "application/octet-stream", "content-length": String(file.length) }).end(file);
  };
}

/** The README's URL mappings, onto the fixture server; every other foreign URL to a 404 stand-in. */
export function corpusRewrite(srv: FixtureServer): (u: string) => string {
  return (u) => {
    if (u.startsWith(srv.origin)) return u;
    const map: Array<[RegExp, (m: RegExpExecArray) => string]> = [
      [/^https?:\/\/iab-publicfiles\.s3\.amazonaws\.com\/vast\/VAST-4\.0-Short-Intro[^/?]*\.mp4/, () => "/media/iab-vast-samples/VAST-4.0-Short-Intro.mp4"],
      [/^https?:\/\/localhost:8000\/([^?#]*)/, (m) => `/vast/${IMA}/${m[1]}`],
      [/^https?:\/\/raw\.githubusercontent\.com\/InteractiveAdvertisingBureau\/VAST_Samples\/master\/VAST%20([\d.]+)%20Samples\/([^?#]*)/,
        (m) => `/vast/iab-vast-samples/vast-${m[1] === "1" || m[1] === "2.0" ? "1-2.0" : m[1]}/${m[2]}`],
      [/^https?:\/\/demo\.tremormedia\.com\/proddev\/vast\/([^?#]*)/, (m) => `/vast/iab-vast-samples/vast-1-2.0/tremor-video/${m[1]}`],
      [/^https?:\/\/192\.168\.1\.200:8080\/([^?#]*)/, (m) => `/vast/zentrick-iab-vast-loader/ad-pod-tree/${m[1]}`],
      [/^https?:\/\/example\.com\/no-ads\.xml/, () => "/vast/zentrick-iab-vast-loader/no-ads.xml"],
      // By file name, in inline/ or wrapper/ (zentrick-iab-vast-parser/SOURCE.md "Resolving the Unruly wrapper URIs").
      [/^https?:\/\/localhost\/test\/resources\/vast\/[^?#]*\/([^/?#]+\.xml)/, (m) => {
        const dir = ["inline", "wrapper"].find((d) => readBelow(vastDir, `zentrick-iab-vast-parser/strict/unruly/${d}/${m[1]}`));
        return dir ? `/vast/zentrick-iab-vast-parser/strict/unruly/${dir}/${m[1]}` : `/_unreachable/${m[1]}`;
      }],
    ];
    for (const [re, to] of map) {
      const m = re.exec(u);
      if (m) return srv.url(to(m));
    }
    return srv.url(`/_unreachable/${encodeURIComponent(u).slice(0, 200)}`);
  };
}
