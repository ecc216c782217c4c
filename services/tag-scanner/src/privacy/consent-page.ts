import { readFileSync } from "node:fs";
import type { CmpConfig } from "./consent-states.ts";

// The consent runs' new-document script: the IAB libraries' bundle (page/cmp-libs.js, generated) declared beside
// the CMP (page/consent-cmp.js), in a scope of their own, called with the run's binding, token and configuration as
// JSON literals (data, never code). The libraries' function is only called in the top document.
const LIBS = readFileSync(new URL("../gatherers/page/cmp-libs.js", import.meta.url), "utf8");
const CMP = readFileSync(new URL("../gatherers/page/consent-cmp.js", import.meta.url), "utf8");
if (!/^function cmpLibs\(/m.test(LIBS) || !/^function consentCmp\(/m.test(CMP)) throw new Error("consent page scripts are not what consent-page.ts expects");

export function consentPageSource(binding: string, token: string, cfg: CmpConfig): string {
  return `(() => {\n${LIBS}\n${CMP}\nreturn consentCmp(${JSON.stringify(binding)}, ${JSON.stringify(token)}, ${JSON.stringify(cfg)}, cmpLibs);\n})()`;
}
