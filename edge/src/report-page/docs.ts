import { createHash } from "node:crypto";
import { esc } from "./html.ts";
import { REPORT_ICON_NAME } from "./style.ts";
import { SWAGGER_UI_VERSION } from "./swagger-ui.ts";

// /docs: the OpenAPI document (/openapi.json) in Swagger UI (swagger-ui-dist, Apache-2.0), every file from our own
// origin: the bundle and its stylesheet from node_modules, and the few lines that start it below — no inline script,
// no CDN, no web fonts (the stylesheet uses the system's). "Try it out" calls the API at the document's server URL
// with the key given under "Authorize" (X-ApiKey), kept in the page's memory only.

/**
 * Starts Swagger UI on the document next to this page. Served as a file (CSP script-src 'self'). Deep links are off:
 * they put a link inside each operation's toggle button (a control nested in a control, which screen readers cannot
 * use); the servers list gets the accessible name Swagger UI leaves out.
 */
export const DOCS_INIT_JS = `"use strict";
window.ui = SwaggerUIBundle({
  url: "openapi.json",
  dom_id: "#swagger-ui",
  deepLinking: false,
  // The public validator badge would send the document to a third party.
  validatorUrl: null,
  displayRequestDuration: true,
  defaultModelsExpandDepth: 0,
  docExpansion: "list",
  persistAuthorization: false,
  // Plain white-on-dark code samples: the highlighter's palette has colours below 4.5:1 on its background.
  syntaxHighlight: { activated: false },
  presets: [SwaggerUIBundle.presets.apis],
  layout: "BaseLayout"
});
new MutationObserver(function () {
  var servers = document.getElementById("servers");
  if (servers && !servers.hasAttribute("aria-label")) servers.setAttribute("aria-label", "Server");
}).observe(document.getElementById("swagger-ui"), { childList: true, subtree: true });
`;

export const DOCS_INIT_NAME = `docs-${digest(DOCS_INIT_JS)}.js`;

/**
 * Our corrections to Swagger UI's stylesheet, for axe-core's serious findings: grey-on-white and white-on-green text
 * below 4.5:1, links told apart by colour alone, and code samples in scrolling boxes a keyboard cannot reach (they wrap instead);
 * and names that must not break ("Idempotency-Key" over two lines, a status code) kept on one line.
 */
export const DOCS_CSS = `
.swagger-ui .info .title small,.swagger-ui .info .title small pre{background:#3b5d00}
.swagger-ui .info .title small.version-stamp{background:#3b5d00}
.swagger-ui .info .title small .version{color:#fff}
.swagger-ui .info a,.swagger-ui .info .url,.swagger-ui .info .base-url{color:#1f4fa0}
.swagger-ui .opblock .opblock-summary-method{color:#fff;text-shadow:none}
.swagger-ui .opblock.opblock-post .opblock-summary-method{background:#1a7a4c}
.swagger-ui .opblock.opblock-get .opblock-summary-method{background:#1f5fbf}
.swagger-ui .opblock.opblock-put .opblock-summary-method{background:#8a4f00}
.swagger-ui .opblock.opblock-delete .opblock-summary-method{background:#b3261e}
.swagger-ui .opblock.opblock-patch .opblock-summary-method{background:#0f6e5e}
.swagger-ui .btn.authorize{border-color:#1a7a4c;color:#1a7a4c}
.swagger-ui .btn.authorize svg{fill:#1a7a4c}
.swagger-ui .btn.execute{background-color:#1f5fbf;border-color:#1f5fbf}
.swagger-ui .try-out__btn.cancel{color:#b3261e;border-color:#b3261e}
.swagger-ui .parameter__in,.swagger-ui .parameter__extension{color:#595959}
.swagger-ui .download-contents{background:#4f5566}
.swagger-ui .message a,.swagger-ui .markdown a,.swagger-ui .renderedMarkdown a{text-decoration:underline}
.swagger-ui .parameters-col_name,.swagger-ui .parameter__name,.swagger-ui .response-col_status{white-space:nowrap}
.swagger-ui .microlight,.swagger-ui .highlight-code>pre,.swagger-ui pre.example{overflow:visible!important;white-space:pre-wrap!important;overflow-wrap:anywhere;max-height:none!important}
`;

export const DOCS_CSS_NAME = `docs-${digest(DOCS_CSS)}.css`;

function digest(s: string): string {
  return createHash("sha256").update(s).digest("hex").slice(0, 12);
}

/** The page shell; everything it shows comes from openapi.json. Asset paths are relative to /docs. */
export function renderDocsPage(doc: { info?: { title?: unknown } }): string {
  const v = SWAGGER_UI_VERSION;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(doc.info?.title ?? "API")} — API reference</title>
<link rel="stylesheet" href="docs/assets/swagger-ui-${esc(v)}/swagger-ui.css">
<link rel="stylesheet" href="docs/assets/${DOCS_CSS_NAME}">
<link rel="icon" href="docs/assets/${REPORT_ICON_NAME}" type="image/svg+xml">
</head><body>
<main id="swagger-ui" aria-label="API reference"><noscript><p>The API reference needs JavaScript. The OpenAPI document itself is at <a href="openapi.json">openapi.json</a>.</p></noscript></main>
<script src="docs/assets/swagger-ui-${esc(v)}/swagger-ui-bundle.js"></script>
<script src="docs/assets/${DOCS_INIT_NAME}"></script>
</body></html>`;
}
