import type { reportstore } from "@cva/contracts";
import { esc, PAGE_STYLE, safeUrl } from "./html.ts";

// The human-readable report page (scan_results.report_url). Rendered from the stored JSON report — the same
// document the client got — so the page shows exactly what the API returned. No scripts: static HTML + CSS.

type J = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- stored JSON, read defensively

interface TestRow {
  group: string;
  id: string;
  name: string;
  expected: string;
  actual: string;
  unit: string;
  result: string;
  message: string;
}

function testRows(report: J, kind: string): TestRow[] {
  const tests = report?.scan_results?.tests;
  if (!tests || typeof tests !== "object") return [];
  const row = (group: string, id: string, t: J): TestRow => ({
    group,
    id,
    name: String(t?.name ?? ""),
    expected: String(t?.expected_text || t?.expected || ""),
    actual: t?.actual === undefined ? "not measured" : String(t.actual),
    unit: String(t?.unit ?? ""),
    result: String(t?.result ?? ""),
    message: String(t?.message ?? ""),
  });
  if (kind === "vast_v3") {
    return Object.entries(tests as J).flatMap(([group, byId]) =>
      Object.entries((byId ?? {}) as J).map(([id, t]) => row(group, id, t as J)),
    );
  }
  return Object.entries(tests as J).map(([id, t]) => row("", id, t as J));
}

function list(title: string, items: string[], max = 100): string {
  if (items.length === 0) return "";
  const more = items.length > max ? `<p class="sub">${items.length - max} more not shown.</p>` : "";
  return `<section><h2>${esc(title)}</h2><ul>${items.slice(0, max).map((e) => `<li>${esc(e)}</li>`).join("")}</ul>${more}</section>`;
}

/**
 * VAST: each media file and overlay with what was measured and, when something could not be, why — the probe's
 * error and the fields left out of the report (not_measured).
 */
function vastCreativesTable(report: J): string {
  const rows: string[] = [];
  const creatives: J[] = Array.isArray(report.creatives) ? report.creatives : [];
  creatives.forEach((c, ci) => {
    const files: J[] = Array.isArray(c?.mediafiles) ? c.mediafiles : [];
    const overlays: J[] = Array.isArray(c?.nonlinears) ? c.nonlinears : [];
    if (files.length === 0 && overlays.length === 0) {
      rows.push(`<tr><td>${ci}</td><td>${esc(c?.type ?? "")}</td><td colspan="3"></td><td class="failed">nothing to play</td></tr>`);
    }
    files.forEach((m, fi) => {
      const v = m?.file_info?.video;
      const what = [m?.attributes?.type, v?.dimensions, v?.codec].filter(Boolean).join(" ");
      const notMeasured: string[] = Array.isArray(m?.not_measured) ? m.not_measured : [];
      const why = [m?.error, notMeasured.length ? `not measured: ${notMeasured.join(", ")}` : ""].filter(Boolean).join(". ");
      rows.push(
        `<tr><td>${ci}</td><td>media file ${fi}</td><td>${esc(m?.url)}</td><td>${esc(what)}</td><td>${esc(m?.http_code)}</td><td>${esc(why)}</td></tr>`,
      );
    });
    overlays.forEach((o, oi) => {
      rows.push(
        `<tr><td>${ci}</td><td>overlay ${oi}</td><td>${esc(o?.resource_url)}</td><td>${esc(`${o?.resource_type ?? ""} ${o?.width ?? 0}x${o?.height ?? 0}`)}</td><td>${esc(o?.http_code)}</td><td>${esc(o?.error)}</td></tr>`,
      );
    });
  });
  if (rows.length === 0) return "";
  return `<section><h2>Creatives</h2><table><thead><tr><th>Creative</th><th>File</th><th>URL</th><th>What</th><th>HTTP</th><th>Problems</th></tr></thead><tbody>${rows.join("")}</tbody></table></section>`;
}

/** VAST: every document of the wrapper chain, why the chain stopped, and what the IAB schema rejected (with lines). */
function vastChainTable(report: J): string {
  const hops: J[] = Array.isArray(report.wrapper_chain) ? report.wrapper_chain : [];
  const checks: J[] = Array.isArray(report.schema_checks) ? report.schema_checks : [];
  if (hops.length === 0) return "";
  const rows = hops.map((h, i) => {
    const check = checks.find((c) => c?.hop === i);
    const schema = !check ? "" : check.schema
      ? ((check.findings ?? []) as J[]).length ? ((check.findings ?? []) as J[]).slice(0, 10).map((f) => `line ${f.line}: ${f.message}`).join("; ") : `valid (${check.schema})`
      : String(check.error ?? "");
    return `<tr><td>${i}</td><td>${esc(h?.url)}</td><td>${esc(h?.http_code)}</td><td>${esc(h?.type)} ${esc(h?.vast_version)}</td><td>${esc(h?.error)}</td><td>${esc(schema)}</td></tr>`;
  });
  return `<section><h2>Wrapper chain</h2><table><thead><tr><th>Hop</th><th>URL</th><th>HTTP</th><th>Document</th><th>Why it stopped</th><th>IAB schema</th></tr></thead><tbody>${rows.join("")}</tbody></table></section>`;
}

/** VAST: what the linter found, errors first, each with where (hop, line, path) and the specification section. */
function vastLintTable(report: J): string {
  const findings: J[] = Array.isArray(report.lint) ? report.lint : [];
  if (findings.length === 0) return "";
  const order: Record<string, number> = { error: 0, warning: 1, info: 2 };
  const sorted = [...findings].sort((a, b) => (order[a?.severity] ?? 3) - (order[b?.severity] ?? 3));
  const rows = sorted.map(
    (f) =>
      `<tr><td>${esc(f?.severity)}</td><td>${esc(f?.hop)}</td><td>${esc(f?.line)}</td><td>${esc(f?.path)}</td><td>${esc(f?.message)}</td><td>${esc(f?.rule)}<br>${esc(f?.spec)}</td></tr>`,
  );
  return `<section><h2>VAST lint</h2><table><thead><tr><th>Severity</th><th>Hop</th><th>Line</th><th>Element</th><th>Finding</th><th>Rule and specification</th></tr></thead><tbody>${rows.join("")}</tbody></table></section>`;
}

/** VAST: the tracker URLs with a fault (host, TLS, test host, mixed content, macros), checked without their request. */
function vastTrackerTable(report: J): string {
  const trackers: J[] = Array.isArray(report.trackers) ? report.trackers : [];
  const rows = trackers.flatMap((t) => {
    const problems = [
      typeof t?.error === "string" && t.error !== "" && !t.error.startsWith("not checked") ? t.error : "",
      t?.non_production ? `host is ${t.non_production}` : "",
      t?.insecure_on_https ? "http: on an https ad" : "",
      ...(Array.isArray(t?.macro_problems) ? t.macro_problems : []),
    ].filter(Boolean);
    return problems.length === 0 ? [] : [`<tr><td>${esc(t?.hop)}</td><td>${esc(t?.kind)}</td><td>${esc(t?.url)}</td><td>${esc(problems.join("; "))}</td></tr>`];
  });
  if (rows.length === 0) return "";
  return `<section><h2>Tracker URLs with a fault</h2><table><thead><tr><th>Hop</th><th>Kind</th><th>URL</th><th>Fault</th></tr></thead><tbody>${rows.join("")}</tbody></table></section>`;
}

function kv(rows: Array<[string, unknown]>): string {
  return `<table><tbody>${rows.map(([k, v]) => `<tr><th scope="row">${esc(k)}</th><td>${esc(v)}</td></tr>`).join("")}</tbody></table>`;
}

function imageTag(img: J | undefined, alt: string, publicBaseUrl: string): string {
  const url = img?.url;
  // Only images the edge itself serves are embedded (the CSP allows no other origin anyway).
  if (typeof url !== "string" || !url.startsWith(`${publicBaseUrl.replace(/\/+$/, "")}/artifacts/`)) return "";
  return `<img class="shot" src="${safeUrl(url)}" alt="${esc(alt)}">`;
}

export function renderReportPage(stored: reportstore.StoredReport, opts: { publicBaseUrl: string }): string {
  let report: J;
  try {
    report = JSON.parse(Buffer.from(stored.json).toString("utf8")) as J;
  } catch {
    report = {};
  }
  const kind = stored.reportKind;
  const title = { tag_v3: "Ad tag report", tag_v2: "Ad tag report (v2)", zip_v2: "HTML5 zip report (v2)", zip_v3: "HTML5 zip report", vast_v3: "VAST report" }[kind] ?? "Scan report";
  const rows = testRows(report, kind);
  // The counts the API returned are authoritative; the rows only add the "could not be evaluated" ones.
  const count = (v: unknown, fallback: number) => (typeof v === "number" ? v : fallback);
  const passed = count(report?.scan_results?.passed, rows.filter((r) => r.result === "passed").length);
  const failed = count(report?.scan_results?.failed, rows.filter((r) => r.result === "failed").length);
  const errored = rows.filter((r) => r.result === "error").length;
  const hasTests = report?.scan_results !== undefined;
  const verdict = !hasTests
    ? `<div class="verdict neutral">No specification tests for this API version</div>`
    : failed === 0 && errored === 0
      ? `<div class="verdict ok">All ${passed} tests passed</div>`
      : `<div class="verdict bad">${failed} failed, ${passed} passed${errored ? `, ${errored} could not be evaluated` : ""}</div>`;

  const meta: J = report.meta ?? {};
  const key: Array<[string, unknown]> = [["Job id", report.job_id ?? stored.jobId]];
  if (report.name) key.push(["Name", report.name]);
  key.push(["Scanned", meta.timestamp ? new Date(Number(meta.timestamp) * 1000).toISOString() : ""]);
  key.push(["Scan duration", meta.scan_duration ? `${meta.scan_duration} s` : ""], ["Server location", meta.server_location]);
  key.push(["Device / language", `${meta.device ?? ""} / ${meta.language ?? ""}`]);
  if (kind === "vast_v3") {
    key.push(["Type", report.type]);
    key.push(["VAST version", report.vast_version], ["Ad system", report.ad_system], ["Ad title", report.ad_title]);
    key.push(["Wrapper redirects", report.wrapper_redirects], ["Ads", (report.ads ?? []).length], ["Creatives", (report.creatives ?? []).length]);
  } else {
    key.push(["Dimensions", report.dimensions?.text], ["Creative rendered", report.creative_rendered]);
    key.push(["Third-party ad server", report["3pas"] || "none detected"], ["Blocked by ad blockers (likely)", report.blocked_by_adblock]);
    if (report.time_to_visual_start !== undefined) key.push(["Time to visual start", `${report.time_to_visual_start} ms`]);
    if (report.animation_duration !== undefined) key.push(["Animation duration", `${report.animation_duration} ms`]);
    key.push(["Total load", `${report.network?.load_size?.total ?? 0} bytes`], ["Cookies", (report.cookies ?? []).length]);
    if (kind === "zip_v3") key.push(["Backup ad", report.has_backup_ad ? report.backup_ad : "none"], ["Click tag used", report.click_tag_used]);
  }
  key.push(["SSL compliant", report.ssl?.compliant]);

  const testsTable = rows.length
    ? `<table><thead><tr>${kind === "vast_v3" ? "<th>Group</th>" : ""}<th>Test</th><th>Name</th><th>Expected</th><th>Actual</th><th>Result</th><th>Why</th></tr></thead><tbody>${rows
        .map(
          (r) =>
            `<tr>${kind === "vast_v3" ? `<td>${esc(r.group)}</td>` : ""}<td><code>${esc(r.id)}</code></td><td>${esc(r.name)}</td><td>${esc(r.expected)}</td><td>${esc(r.actual)}${r.unit && r.actual !== "not measured" ? ` ${esc(r.unit)}` : ""}</td><td class="${esc(r.result)}">${esc(r.result)}</td><td>${esc(r.message)}</td></tr>`,
        )
        .join("")}</tbody></table>`
    : "<p>No tests.</p>";

  const responses: J[] = Array.isArray(report.network?.responses) ? report.network.responses : [];
  const networkTable = responses.length
    ? `<table><thead><tr><th>Status</th><th>Method</th><th>Type</th><th>URL</th><th>Bytes</th><th>Time</th></tr></thead><tbody>${responses
        .slice(0, 500)
        .map(
          (r) =>
            `<tr><td>${esc(r.status)}</td><td>${esc(r.method)}</td><td>${esc(r.resource_type)}</td><td>${esc(r.url)}</td><td>${esc(r.bytes)}</td><td>${esc(r.timing)} ms</td></tr>`,
        )
        .join("")}</tbody></table>${responses.length > 500 ? `<p class="sub">${responses.length - 500} more not shown.</p>` : ""}`
    : "<p>No network requests.</p>";

  const shot = imageTag(report.screenshot?.highres, "Screenshot of the creative", opts.publicBaseUrl);
  const lpShot = imageTag(report.landing_page?.screenshot, "Screenshot of the landing page", opts.publicBaseUrl);
  const consoleErrors: string[] = Array.isArray(report.console?.errors) ? report.console.errors : [];
  const insecure: string[] = report.ssl?.insecure_urls ?? report.ssl?.non_secure_urls ?? [];

  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex"><title>${esc(title)} — ${esc(report.name || stored.jobId)}</title>
<style>${PAGE_STYLE}</style></head>
<body><main>
<h1>${esc(title)}</h1>
<div class="sub">${esc(report.name || "")} ${esc(stored.jobId)}</div>
${verdict}
<div class="grid">
<section><h2>Summary</h2>${kv(key)}</section>
<section><h2>Screenshot</h2>${shot || "<p>No screenshot.</p>"}${lpShot ? `<h3>Landing page</h3>${lpShot}` : ""}</section>
</div>
${list("Problems found", Array.isArray(report.errors) ? report.errors.map(String) : [])}
${Array.isArray(report.not_measured) && report.not_measured.length ? `<p class="sub">Not measured (values left out, objects empty): ${esc(report.not_measured.join(", "))}</p>` : ""}
<section><h2>Tests</h2>${testsTable}</section>
${kind === "vast_v3" ? vastCreativesTable(report) + vastChainTable(report) + vastLintTable(report) + vastTrackerTable(report) : `<section><h2>Network</h2>${networkTable}</section>`}
${consoleErrors.length ? `<section><h2>Console errors</h2><ul>${consoleErrors.slice(0, 100).map((e) => `<li><code>${esc(e)}</code></li>`).join("")}</ul></section>` : ""}
${insecure.length ? `<section><h2>Insecure URLs</h2><ul>${insecure.slice(0, 100).map((u) => `<li><code>${esc(u)}</code></li>`).join("")}</ul></section>` : ""}
</main></body></html>`;
}
