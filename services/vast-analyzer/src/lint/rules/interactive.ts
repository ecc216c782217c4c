import { kid, kids, textOf } from "../../xml-tree.ts";
import { attrOf, tag } from "../context.ts";
import { requiresAttr, rule, under } from "../define.ts";
import { SPEC } from "../spec.ts";
import { ALL, V4_UP, V41_UP } from "../versions.ts";
import { isHttpUrl } from "../values.ts";
import type { LintRule } from "../types.ts";

// Interactive creatives: SIMID and VPAID files, AdParameters.

const group = "interactive" as const;
const interactiveFiles = (ctx: Parameters<LintRule["check"]>[0]) => under(ctx, "MediaFiles", "InteractiveCreativeFile");
const isSimid = (n: Parameters<typeof attrOf>[0]) => (attrOf(n, "apiFramework") ?? "").trim().toUpperCase() === "SIMID";

export const interactiveRules: LintRule[] = [
  requiresAttr({
    id: "vast.interactive-creative-file.api-framework.required", group, severity: "warning", versions: V4_UP, spec: SPEC.interactiveFile,
    title: "<InteractiveCreativeFile> has an apiFramework",
    where: interactiveFiles, attr: "apiFramework", why: 'e.g. "SIMID"; a player runs only frameworks it supports',
  }),
  requiresAttr({
    id: "vast.interactive-creative-file.type.required", group, severity: "warning", versions: V4_UP, spec: SPEC.interactiveFile,
    title: "<InteractiveCreativeFile> has a type",
    where: interactiveFiles, attr: "type", why: 'the MIME type, e.g. "text/html" for SIMID',
  }),
  rule({
    id: "vast.interactive-creative-file.url", group, severity: "error", versions: V4_UP, spec: SPEC.interactiveFile,
    title: "<InteractiveCreativeFile> holds an http(s) URL (or, 4.3, a data:text/html URI)",
    *check(ctx) {
      for (const n of interactiveFiles(ctx)) {
        // VAST 4.3 also allows the creative inline as a data:text/html URI.
        if (!isHttpUrl(textOf(n)) && !/^data:text\/html[;,]/i.test(textOf(n))) yield { node: n, message: `<InteractiveCreativeFile> "${textOf(n).slice(0, 80)}" is not an http(s) URL: put the interactive creative's URL in it` };
      }
    },
  }),
  rule({
    id: "vast.simid.type.html", group, severity: "error", versions: V41_UP, spec: SPEC.simid,
    title: "a SIMID <InteractiveCreativeFile> has type text/html",
    *check(ctx) {
      for (const n of interactiveFiles(ctx).filter(isSimid)) {
        const t = attrOf(n, "type");
        if (t !== undefined && t.trim().toLowerCase() !== "text/html") yield { node: n, message: `<InteractiveCreativeFile apiFramework="SIMID"> type="${t}": a SIMID creative is an HTML page; write type="text/html"` };
      }
    },
  }),
  rule({
    id: "vast.simid.https", group, severity: "warning", versions: V41_UP, spec: SPEC.simid,
    title: "a SIMID creative is loaded over https",
    *check(ctx) {
      for (const n of interactiveFiles(ctx).filter(isSimid)) {
        if (/^\s*http:/i.test(textOf(n))) yield { node: n, message: "<InteractiveCreativeFile apiFramework=\"SIMID\"> is http: players on https pages block it (mixed content); serve it over https" };
      }
    },
  }),
  rule({
    id: "vast.vpaid.type", group, severity: "warning", versions: ALL, spec: "IAB VPAID 2.0 §2.1 (JavaScript: application/javascript)",
    title: "a VPAID file has a JavaScript (or Flash) MIME type",
    *check(ctx) {
      for (const n of [...under(ctx, "MediaFiles", "MediaFile"), ...interactiveFiles(ctx)]) {
        const api = (attrOf(n, "apiFramework") ?? "").trim().toUpperCase();
        const t = (attrOf(n, "type") ?? "").trim().toLowerCase();
        if (!api.startsWith("VPAID") || t === "") continue;
        if (!/javascript|ecmascript|shockwave-flash/.test(t)) yield { node: n, message: `${tag(n)} apiFramework="VPAID" type="${t}": a VPAID unit is code; its type is application/javascript` };
      }
    },
  }),
  rule({
    id: "vast.ad-parameters.unused", group, severity: "info", versions: ALL, spec: SPEC.adParameters,
    title: "<AdParameters> has something to read it",
    *check(ctx) {
      // Only a Linear's: a NonLinear's or Companion's HTML or iframe resource may read its own parameters.
      for (const p of ctx.all("AdParameters")) {
        const owner = ctx.parent(p);
        if (!owner || owner.name.toLowerCase() !== "linear") continue;
        const mfs = kid(owner, "MediaFiles");
        const consumers = [...kids(mfs, "MediaFile"), ...kids(mfs, "InteractiveCreativeFile")].some((n) => (attrOf(n, "apiFramework") ?? "").trim() !== "");
        if (!consumers) yield { node: p, message: "<AdParameters> in a <Linear> with no VPAID or SIMID file: nothing reads them; remove them or add the interactive file" };
      }
    },
  }),
];
