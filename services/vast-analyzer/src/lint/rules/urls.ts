import { tag } from "../context.ts";
import { rule } from "../define.ts";
import { SPEC } from "../spec.ts";
import { ALL } from "../versions.ts";
import { hostOf, isHttpUrl, withoutMacros } from "../values.ts";
import { urlElements } from "../urls.ts";
import { nonProductionHost } from "../hosts.ts";
import type { LintRule } from "../types.ts";

// URLs as written: well-formed, absolute http(s), no script schemes, no hosts that only exist in a test lab.
// (Whether a host resolves and its TLS is valid is a network question, not the linter's.)

const group = "urls" as const;

/** Elements whose emptiness another rule reports (MediaFile, resources, VASTAdTagURI, verification and SIMID files). */
const OWN_EMPTY_RULE = new Set(["mediafile", "staticresource", "iframeresource", "vastadtaguri", "javascriptresource", "interactivecreativefile"]);
/** Elements whose URL another rule judges as a whole (wrappers.ts, conditional.ts, interactive.ts). */
const OWN_URL_RULE = new Set(["vastadtaguri", "javascriptresource", "interactivecreativefile"]);
const SCRIPT_SCHEME = /^\s*(javascript|vbscript|data):/i;
/** A scheme is written (`rtsp:`, `mailto:`); without one the value is a relative reference. */
const HAS_SCHEME = /^\s*[A-Za-z][A-Za-z0-9+.-]*:/;
/** Streaming protocols a MediaFile or Mezzanine with delivery="streaming" may use. */
const STREAMING_SCHEME = /^\s*(rtmpe?|rtmps|rtsp|rtmpt):\/\//i;
/** VAST 4.3 allows an interactive creative inline as a data: URI (IAB sample Interactive_Creative_File_Data_URI). */
const isDataCreative = (name: string, url: string) => name.toLowerCase() === "interactivecreativefile" && /^\s*data:text\/html[;,]/i.test(url);

export const urlRules: LintRule[] = [
  rule({
    id: "vast.url.empty", group, severity: "warning", versions: ALL, spec: SPEC.urls,
    title: "a tracking or click element holds a URL",
    *check(ctx) {
      for (const { node, url } of urlElements(ctx)) {
        if (url === "" && !OWN_EMPTY_RULE.has(node.name.toLowerCase())) yield { node, message: `${tag(node)} is empty: put the URL in it, or remove the element (players call empty URLs or skip them)` };
      }
    },
  }),
  rule({
    id: "vast.url.invalid", group, severity: "error", versions: ALL, spec: SPEC.urls,
    title: "a URL with a scheme is an http(s) URL",
    *check(ctx) {
      for (const { node, url, kind } of urlElements(ctx)) {
        if (url === "" || OWN_URL_RULE.has(node.name.toLowerCase()) || SCRIPT_SCHEME.test(url) || /^\/\//.test(url) || isHttpUrl(url)) continue;
        // Without a scheme it is a relative reference (its own rule); a streaming protocol is fine for streamed media.
        if (!HAS_SCHEME.test(url) || (kind === "media" && STREAMING_SCHEME.test(url))) continue;
        yield { node, message: `${tag(node)} "${url.slice(0, 100)}" is not a valid http(s) URL (another scheme, or no host): players request only http(s) URLs; write the full https:// URL` };
      }
    },
  }),
  rule({
    id: "vast.url.relative", group, severity: "warning", versions: ALL, spec: SPEC.urls,
    title: "a URL is absolute (scheme and host)",
    *check(ctx) {
      for (const { node, url } of urlElements(ctx)) {
        // Verification scripts and interactive files: their own rules reject anything but http(s).
        if (url === "" || HAS_SCHEME.test(url) || /^\/\//.test(url) || ["javascriptresource", "interactivecreativefile"].includes(node.name.toLowerCase())) continue;
        yield { node, message: `${tag(node)} "${url.slice(0, 100)}" has no scheme: a player resolves it against the VAST document's own URL, if at all; write the absolute https:// URL` };
      }
    },
  }),
  rule({
    id: "vast.url.script-scheme", group, severity: "error", versions: ALL, spec: `${SPEC.urls}; security`,
    title: "no javascript:, vbscript: or data: URL",
    *check(ctx) {
      for (const { node, url } of urlElements(ctx)) {
        if (SCRIPT_SCHEME.test(url) && !isDataCreative(node.name, url)) yield { node, message: `${tag(node)} uses a ${url.trim().split(":")[0]!.toLowerCase()}: URL: players refuse script URLs and security scanners flag them; use an https URL` };
      }
    },
  }),
  rule({
    id: "vast.url.protocol-relative", group, severity: "warning", versions: ALL, spec: SPEC.urls,
    title: "a URL names its scheme (no //host/…)",
    *check(ctx) {
      for (const { node, url } of urlElements(ctx)) {
        if (/^\/\//.test(url)) yield { node, message: `${tag(node)} "${url.slice(0, 100)}" has no scheme: apps and CTV players have no page to take it from; write https:${url.slice(0, 40)}…` };
      }
    },
  }),
  rule({
    id: "vast.url.whitespace", group, severity: "warning", versions: ALL, spec: SPEC.urls,
    title: "a URL has no spaces inside",
    *check(ctx) {
      for (const { node, url } of urlElements(ctx)) {
        if (url !== "" && /\s/.test(withoutMacros(url))) yield { node, message: `${tag(node)} has whitespace inside its URL: encode spaces as %20 and remove line breaks` };
      }
    },
  }),
  rule({
    id: "vast.url.insecure", group, severity: "info", versions: ALL, spec: `${SPEC.urls}; mixed content (W3C)`,
    title: "a URL the player loads uses https",
    *check(ctx) {
      for (const { node, url, kind } of urlElements(ctx)) {
        // Verification scripts and interactive files have their own https rules.
        if (kind === "click-through" || kind === "verification" || node.name.toLowerCase() === "interactivecreativefile") continue;
        if (/^\s*http:\/\//i.test(url)) yield { node, message: `${tag(node)} is http: players on https pages and apps with ATS block it; serve it over https` };
      }
    },
  }),
  rule({
    id: "vast.url.non-production-host", group, severity: "warning", versions: ALL, spec: `${SPEC.urls}; RFC 2606, RFC 6761, RFC 1918`,
    title: "no localhost, private, reserved or staging host",
    *check(ctx) {
      for (const { node, url } of urlElements(ctx)) {
        const host = hostOf(url);
        const why = host === undefined ? undefined : nonProductionHost(host);
        if (why) yield { node, message: `${tag(node)} points at ${host} (${why}): a viewer's player cannot reach it; use the production host` };
      }
    },
  }),
  rule({
    id: "vast.url.cdata", group, severity: "info", versions: ALL, spec: SPEC.urls,
    title: "a URL with a query string is in CDATA",
    *check(ctx) {
      for (const { node, url } of urlElements(ctx)) {
        if (!node.cdata && url.includes("&")) yield { node, message: `${tag(node)} URL with parameters is not in CDATA: wrap it in <![CDATA[…]]> so '&' needs no escaping and survives re-serialisation` };
      }
    },
  }),
  rule({
    id: "vast.url.too-long", group, severity: "warning", versions: ALL, spec: `${SPEC.urls}; common server limit 8 KB`,
    title: "a URL is at most 8192 characters",
    *check(ctx) {
      for (const { node, url } of urlElements(ctx)) {
        if (url.length > 8192) yield { node, message: `${tag(node)} URL is ${url.length} characters: many servers and CDNs refuse requests over 8 KB; shorten it` };
      }
    },
  }),
];
