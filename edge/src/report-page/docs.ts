import { esc, PAGE_STYLE } from "./html.ts";

// /docs: a self-contained, server-rendered view of /openapi.json (no CDN, no scripts): every path with its
// parameters, request body and responses, and every component schema as a nested property table.

type J = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- an OpenAPI document

function typeOf(s: J): string {
  if (!s) return "";
  if (s.$ref) return String(s.$ref).replace("#/components/schemas/", "");
  if (s.oneOf) return (s.oneOf as J[]).map(typeOf).join(" | ");
  // An always-present object that may be empty (views/schema.ts orEmpty): "object (or {})".
  if (s.anyOf) return `${typeOf((s.anyOf as J[])[0]!)} (or {})`;
  const t = Array.isArray(s.type) ? s.type.join(" | ") : (s.type ?? "");
  if (t === "array") return `array of ${typeOf(s.items)}`;
  if (t === "object" && s.additionalProperties && typeof s.additionalProperties === "object" && !s.properties) {
    return `map of ${typeOf(s.additionalProperties)}`;
  }
  return s.enum ? `${t} (${(s.enum as unknown[]).join(", ")})` : t;
}

function schemaRows(s: J, prefix: string, out: string[], depth = 0): void {
  if (!s || depth > 8) return;
  if (s.anyOf) return schemaRows((s.anyOf as J[])[0]!, prefix, out, depth);
  const target = s.type === "array" ? s.items : s.type === "object" && !s.properties && typeof s.additionalProperties === "object" ? s.additionalProperties : s;
  const req = new Set<string>(target?.required ?? []);
  for (const [name, p] of Object.entries((target?.properties ?? {}) as J)) {
    const path = prefix ? `${prefix}.${name}` : name;
    const prop = p as J;
    out.push(
      `<tr><td><code>${esc(path)}</code></td><td>${esc(typeOf(prop))}</td><td>${req.has(name) ? "yes" : ""}</td><td>${esc(prop.description ?? "")}${prop.maxLength ? esc(` (max length ${prop.maxLength})`) : ""}</td></tr>`,
    );
    schemaRows(prop, path + (prop.type === "array" ? "[]" : prop.additionalProperties && !prop.properties ? ".*" : ""), out, depth + 1);
  }
}

function schemaTable(s: J): string {
  const rows: string[] = [];
  schemaRows(s, "", rows);
  if (!rows.length) return `<p>${esc(typeOf(s))}</p>`;
  return `<table><thead><tr><th>Field</th><th>Type</th><th>Required</th><th>Description</th></tr></thead><tbody>${rows.join("")}</tbody></table>`;
}

export function renderDocsPage(doc: J): string {
  const sections: string[] = [];
  for (const [path, item] of Object.entries((doc.paths ?? {}) as J)) {
    for (const [method, op] of Object.entries(item as J)) {
      const o = op as J;
      const params = (o.parameters ?? []) as J[];
      const body = o.requestBody?.content?.["application/json"]?.schema;
      sections.push(`<section id="${esc(o.operationId ?? "")}"><h2><code>${esc(method.toUpperCase())} ${esc(path)}</code></h2>
<p>${esc(o.summary ?? "")}</p>${o.description ? `<p class="sub">${esc(o.description)}</p>` : ""}
${o.security ? "<p>Requires the <code>X-ApiKey</code> header.</p>" : ""}
${params.length ? `<h3>Parameters</h3><table><thead><tr><th>Name</th><th>In</th><th>Type</th><th>Description</th></tr></thead><tbody>${params.map((p) => `<tr><td><code>${esc(p.name)}</code></td><td>${esc(p.in)}</td><td>${esc(typeOf(p.schema))}</td><td>${esc(p.description ?? "")}</td></tr>`).join("")}</tbody></table>` : ""}
${body ? `<h3>Request body</h3><p class="sub">${esc(body.description ?? "")}</p>${schemaTable(body)}` : ""}
<h3>Responses</h3><table><thead><tr><th>Status</th><th>Description</th><th>Body</th></tr></thead><tbody>${Object.entries((o.responses ?? {}) as J)
        .map(([code, r]) => {
          const content = Object.entries(((r as J).content ?? {}) as J)[0];
          return `<tr><td>${esc(code)}</td><td>${esc((r as J).description ?? "")}</td><td>${content ? `${esc(content[0])} ${esc(typeOf((content[1] as J).schema))}` : ""}</td></tr>`;
        })
        .join("")}</tbody></table></section>`);
    }
  }
  const schemas = Object.entries((doc.components?.schemas ?? {}) as J)
    .map(([name, s]) => `<section id="schema-${esc(name)}"><h2>${esc(name)}</h2><p class="sub">${esc((s as J).description ?? "")}</p>${schemaTable(s as J)}</section>`)
    .join("\n");
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(doc.info?.title)} — API reference</title><style>${PAGE_STYLE}</style></head><body><main>
<h1>${esc(doc.info?.title)} <span class="sub">${esc(doc.info?.version)}</span></h1>
<p>${esc(doc.info?.description)}</p><p>Machine-readable: <a href="openapi.json">openapi.json</a> (OpenAPI ${esc(doc.openapi)}).</p>
<h2>Endpoints</h2>${sections.join("\n")}
<h2>Schemas</h2>${schemas}
</main></body></html>`;
}
