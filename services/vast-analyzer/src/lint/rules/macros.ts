import { tag } from "../context.ts";
import { rule } from "../define.ts";
import { IAB_MACROS, NON_STANDARD_MACROS } from "../iab-macros.ts";
import { SPEC } from "../spec.ts";
import { ALL, V3_UP, V41_UP } from "../versions.ts";
import { urlElements, type UrlKind } from "../urls.ts";
import type { LintContext } from "../context.ts";
import type { LintRule, LintVersion } from "../types.ts";

// IAB macros in URLs: known names, spelled as the list spells them, used where a player fills them, from the version
// that introduced them; and what is not a player macro at all (an ad server's, left unexpanded).

const group = "macros" as const;
const BRACKET = /\[([A-Za-z][A-Za-z0-9_]{0,63})\]/g;
const ORDER: readonly LintVersion[] = ["2.0", "3.0", "4.0", "4.1", "4.2", "4.3"];

function* macroUses(ctx: LintContext): Generator<{ node: ReturnType<typeof urlElements>[number]["node"]; kind: UrlKind; name: string; raw: string; url: string }> {
  for (const { node, kind, url } of urlElements(ctx)) {
    for (const m of url.matchAll(BRACKET)) yield { node, kind, name: m[1]!, raw: m[0], url };
  }
}

const known = (name: string) => IAB_MACROS.get(name.toUpperCase());

export const macroRules: LintRule[] = [
  rule({
    id: "vast.macro.unknown", group, severity: "warning", versions: ALL, spec: SPEC.macros,
    title: "bracket macros are IAB macros",
    *check(ctx) {
      for (const u of macroUses(ctx)) {
        if (!known(u.name) && !NON_STANDARD_MACROS.has(u.name.toUpperCase())) {
          yield { node: u.node, message: `${tag(u.node)} uses ${u.raw}, which is not an IAB VAST macro: no player fills it and it is sent as written; use an IAB macro or fill it on the ad server` };
        }
      }
    },
  }),
  rule({
    id: "vast.macro.case", group, severity: "warning", versions: ALL, spec: SPEC.macros,
    title: "IAB macros are written in upper case",
    *check(ctx) {
      for (const u of macroUses(ctx)) {
        if (known(u.name) && u.name !== u.name.toUpperCase()) yield { node: u.node, message: `${tag(u.node)} uses ${u.raw}: players match macro names as written in the IAB list; write [${u.name.toUpperCase()}]` };
      }
    },
  }),
  rule({
    id: "vast.macro.non-standard", group, severity: "info", versions: ALL, spec: SPEC.macros,
    title: "a non-IAB macro some players fill has an IAB equivalent",
    *check(ctx) {
      for (const u of macroUses(ctx)) {
        const use = NON_STANDARD_MACROS.get(u.name.toUpperCase());
        if (use !== undefined) yield { node: u.node, message: `${tag(u.node)} uses ${u.raw}: not an IAB macro (some players fill it, others send it as written); use ${use}` };
      }
    },
  }),
  rule({
    id: "vast.macro.version", group, severity: "info", versions: ALL, spec: SPEC.macros,
    title: "a macro exists in the document's VAST version",
    *check(ctx) {
      if (!ctx.version) return;
      for (const u of macroUses(ctx)) {
        const m = known(u.name);
        if (m && ORDER.indexOf(m.since) > ORDER.indexOf(ctx.version)) {
          yield { node: u.node, message: `${tag(u.node)} uses ${u.raw}, introduced in VAST ${m.since}: a VAST ${ctx.version} player may send it unfilled; declare version ${m.since} or fill it on the ad server` };
        }
      }
    },
  }),
  rule({
    id: "vast.macro.deprecated", group, severity: "warning", versions: V41_UP, spec: SPEC.macros,
    title: "no deprecated macros ([CONTENTPLAYHEAD])",
    *check(ctx) {
      for (const u of macroUses(ctx)) {
        const m = known(u.name);
        if (m?.deprecated && ORDER.indexOf(m.deprecated.since) <= ORDER.indexOf(ctx.version ?? "4.3")) {
          yield { node: u.node, message: `${tag(u.node)} uses ${u.raw}, deprecated since VAST ${m.deprecated.since}: use ${m.deprecated.use}` };
        }
      }
    },
  }),
  rule({
    id: "vast.macro.context", group, severity: "info", versions: V3_UP, spec: SPEC.macros,
    title: "a macro is used where players fill it",
    *check(ctx) {
      for (const u of macroUses(ctx)) {
        const m = known(u.name);
        if (!m) continue;
        const where =
          m.context === "error" && u.kind !== "error" ? "<Error> URLs"
          : m.context === "click" && u.kind !== "click-tracking" ? "click-tracking URLs"
          : m.context === "verification" && !(u.kind === "tracking" && ctx.ancestor(u.node, "Verification")) ? "a Verification's verificationNotExecuted tracking URL"
          : m.context === "request" && u.kind !== "request" ? "VAST request URIs (<VASTAdTagURI>)"
          : m.context === "tracking" && u.kind === "request" ? "tracking URLs, not VAST requests"
          : undefined;
        if (where) yield { node: u.node, message: `${tag(u.node)} uses ${u.raw}: players fill it only in ${where}; elsewhere it is sent empty or as written` };
      }
    },
  }),
  rule({
    id: "vast.macro.encoded", group, severity: "warning", versions: ALL, spec: SPEC.macros,
    title: "macros are not percent-encoded",
    *check(ctx) {
      for (const { node, url } of urlElements(ctx)) {
        for (const m of url.matchAll(/%5B([A-Za-z][A-Za-z0-9_]{0,63})%5D/gi)) {
          if (known(m[1]!)) yield { node, message: `${tag(node)} has ${m[0]}: many players (and the IAB list) fill macros only in their bracket form; write [${m[1]!.toUpperCase()}] unencoded` };
        }
      }
    },
  }),
  rule({
    id: "vast.macro.unbalanced", group, severity: "warning", versions: ALL, spec: `${SPEC.macros}; RFC 3986 §3.2.2 (brackets only around IPv6 hosts)`,
    title: "square brackets in a URL form macros",
    *check(ctx) {
      for (const { node, url } of urlElements(ctx)) {
        // Outside the host, brackets are only legal around a macro; an IPv6 host keeps its own.
        // A macro with spaces inside is the whitespace rule's finding.
        const rest = url.replace(/^\s*https?:\/\/\[[0-9a-f:.]+\]/i, "").replace(BRACKET, "").replace(/\[\s*[A-Za-z_]+\s*\]/g, "");
        if (/[[\]]/.test(rest)) yield { node, message: `${tag(node)} has a '[' or ']' that is not part of a [MACRO]: close the macro (e.g. [CACHEBUSTING]) or percent-encode the bracket` };
      }
    },
  }),
  rule({
    id: "vast.macro.whitespace", group, severity: "warning", versions: ALL, spec: SPEC.macros,
    title: "macro names have no spaces ([ CACHEBUSTING ])",
    *check(ctx) {
      for (const { node, url } of urlElements(ctx)) {
        const m = /\[\s+[A-Za-z_]+\s*\]|\[[A-Za-z_]+\s+\]/.exec(url);
        if (m) yield { node, message: `${tag(node)} has ${m[0]}: players do not recognise a macro with spaces; write [${m[0].replace(/[[\]\s]/g, "").toUpperCase()}]` };
      }
    },
  }),
  rule({
    id: "vast.macro.ad-server.unexpanded", group, severity: "warning", versions: ALL, spec: `${SPEC.macros} (player macros only)`,
    title: "no unexpanded ad-server macros (%%…%%, ${…}, {{…}})",
    *check(ctx) {
      for (const { node, url } of urlElements(ctx)) {
        const m = /%%[A-Za-z0-9_:.-]+%%|\$\{[A-Za-z0-9_]+\}|\{\{[^{}\s]{1,64}\}\}/.exec(url);
        if (m) yield { node, message: `${tag(node)} still has the ad-server macro ${m[0]}: the ad server should have filled it; players send it as written` };
      }
    },
  }),
  rule({
    id: "vast.macro.error-code.missing", group, severity: "info", versions: V3_UP, spec: `${SPEC.macros}; ${SPEC.error}`,
    title: "an <Error> URL carries [ERRORCODE]",
    *check(ctx) {
      for (const { node, url, kind } of urlElements(ctx)) {
        if (kind === "error" && url !== "" && !/\[ERRORCODE\]/i.test(url)) yield { node, message: "<Error> URL has no [ERRORCODE]: add it so the ad server learns why playback failed (e.g. 303, 401, 405)" };
      }
    },
  }),
  rule({
    id: "vast.macro.cachebusting.missing", group, severity: "info", versions: V3_UP, spec: SPEC.macros,
    title: "an <Impression> URL carries [CACHEBUSTING] or [TIMESTAMP]",
    *check(ctx) {
      for (const { node, url } of urlElements(ctx)) {
        if (node.name.toLowerCase() !== "impression" || url === "") continue;
        if (!/\[(CACHEBUSTING|TIMESTAMP)\]|%%CACHEBUSTER%%/i.test(url)) yield { node, message: "<Impression> URL has no [CACHEBUSTING]: caches and proxies may swallow repeated impressions; add [CACHEBUSTING]" };
      }
    },
  }),
];
