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

  it("v3 zip: titled as such, with its backup ad", () => {
    const html = renderReportPage(stored("zip_v3", { has_backup_ad: true, backup_ad: "backup.jpg", click_tag_used: true, dimensions: { text: "300x250" } }), { publicBaseUrl: "https://edge.test" });
    expect(html).toContain("HTML5 zip report");
    expect(html).toContain("backup.jpg");
  });
});
