import { describe, expect, it } from "vitest";
import { create } from "@bufbuild/protobuf";
import { reportstore } from "@cva/contracts";
import { renderReportPage } from "../src/report-page/render.ts";

const stored = (reportKind: string, report: unknown) =>
  create(reportstore.StoredReportSchema, { jobId: "j1", reportKind, json: Buffer.from(JSON.stringify(report)) });

describe("report page", () => {
  it("VAST: the wrapper chain with why it stopped and the IAB schema's findings by line", () => {
    const html = renderReportPage(
      stored("vast_v3", {
        type: "wrapper", ads: [], creatives: [], errors: [],
        wrapper_chain: [
          { url: "https://a.example/w.xml", http_code: 200, type: "wrapper", vast_version: "4.1", error: "" },
          { url: "https://dead.example/v.xml", http_code: 0, type: "unavailable", vast_version: "", error: "wrapper target 1 https://dead.example/v.xml could not be fetched: DNS lookup of dead.example failed: no such host (ENOTFOUND)" },
        ],
        schema_checks: [{ hop: 0, schema: "vast_4.1.xsd", findings: [{ line: 7, message: "Element 'Sponsor': This element is not expected." }], error: "" }],
      }),
      { publicBaseUrl: "https://edge.test" },
    );
    expect(html).toContain("Wrapper chain");
    expect(html).toContain("DNS lookup of dead.example failed");
    expect(html).toContain("line 7: Element &#39;Sponsor&#39;");
  });

  it("VAST: every lint finding with where it is and its specification section, errors first", () => {
    const html = renderReportPage(
      stored("vast_v3", {
        type: "inline", ads: [], creatives: [], errors: [], wrapper_chain: [{ url: "https://a.example/i.xml", http_code: 200, type: "inline", vast_version: "4.2", error: "", lint_rules: 240 }],
        lint: [
          { rule: "vast.url.insecure", severity: "info", group: "urls", hop: 0, line: 12, path: "/VAST/Ad[1]/InLine/Impression[1]", spec: "VAST 4.2 §2.3.2", message: "<Impression> is http" },
          { rule: "vast.inline.ad-system.required", severity: "error", group: "required_elements", hop: 0, line: 4, path: "/VAST/Ad[1]/InLine", spec: "VAST 4.2 §3.4.1 <AdSystem>", message: "<InLine> has no <AdSystem>" },
        ],
      }),
      { publicBaseUrl: "https://edge.test" },
    );
    expect(html).toContain("VAST lint");
    expect(html).toContain("VAST 4.2 §3.4.1 &lt;AdSystem&gt;");
    expect(html.indexOf("vast.inline.ad-system.required")).toBeLessThan(html.indexOf("vast.url.insecure"));
  });

  it("VAST: tracker URLs with a fault, and only those", () => {
    const html = renderReportPage(
      stored("vast_v3", {
        type: "inline", ads: [], creatives: [], errors: [], wrapper_chain: [],
        trackers: [
          { url: "https://t.example/ok", kind: "tracking", hop: 0, host: "t.example", resolves: true, tls_valid: true, non_production: "", insecure_on_https: false, macro_problems: [], network_checked: true, error: "" },
          { url: "https://tls.example/fq", kind: "tracking", hop: 0, host: "tls.example", resolves: true, tls_valid: false, non_production: "", insecure_on_https: false, macro_problems: [], network_checked: true, error: "TLS handshake failed: certificate has expired" },
        ],
      }),
      { publicBaseUrl: "https://edge.test" },
    );
    expect(html).toContain("Tracker URLs with a fault");
    expect(html).toContain("certificate has expired");
    expect(html).not.toContain("https://t.example/ok");
  });

  it("v3 zip: titled as such, with its backup ad", () => {
    const html = renderReportPage(stored("zip_v3", { has_backup_ad: true, backup_ad: "backup.jpg", click_tag_used: true, dimensions: { text: "300x250" } }), { publicBaseUrl: "https://edge.test" });
    expect(html).toContain("HTML5 zip report");
    expect(html).toContain("backup.jpg");
  });
});
