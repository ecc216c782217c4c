import { describe, expect, it } from "vitest";
import { create } from "@bufbuild/protobuf";
import { reportstore } from "@cva/contracts";
import { docsCsp, REPORT_ASSETS, reportPageCsp } from "../src/report-page/assets.ts";
import { byKey, bytes, ms, num, withUnit } from "../src/report-page/format.ts";
import { renderReportPage } from "../src/report-page/render.ts";
import { vendorOf } from "../src/report-page/sections/network.ts";
import { groupLabel } from "../src/report-page/sections/tests.ts";

const BASE = "https://edge.test";
const stored = (reportKind: string, report: unknown) =>
  create(reportstore.StoredReportSchema, { jobId: "j1", reportKind, json: Buffer.from(JSON.stringify(report)) });
/** Numbers and their units are joined by a no-break space; the expectations below write it as a space. */
const sp = (s: string) => s.replace(/\u00a0/g, " ");
const page = (kind: string, report: unknown) => sp(renderReportPage(stored(kind, report), { publicBaseUrl: BASE }));
const HOSTILE = `<script>alert(1)</script>"'\`<img src=x onerror=alert(2)>`;
const HOSTILE_ESCAPED = "&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&#96;&lt;img src=x onerror=alert(2)&gt;";

/** The page has no markup that runs or styles anything: no script, no handler, no inline style, no foreign embed. */
function inert(html: string): void {
  // Every "<" of a report string is escaped, so any tag left is ours.
  expect(html).not.toMatch(/<(script|style|iframe|object|embed|image|form)\b/i);
  expect(html).not.toMatch(/<[a-z][^>]*\s(on[a-z]+|style)=/i);
  expect(html).not.toMatch(/(href|src)="(?!https?:|#|assets\/)/i);
}

describe("report page: numbers as people read them", () => {
  it("units and precision, a number never parted from its unit", () => {
    expect(withUnit(5.1, "%")).toBe("5.1\u00a0%");
    expect(sp(num(1.1764705882352942))).toBe("1.18");
    expect(sp(num(5.098868299962691))).toBe("5.1");
    expect(sp(num(123.456))).toBe("123");
    expect(sp(num(1234567))).toBe("1,234,567");
    expect(sp(num(0.01234))).toBe("0.012");
    expect(sp(withUnit(1.1764705882352942, "%"))).toBe("1.2 %");
    expect(sp(withUnit(1500, "ms"))).toBe("1.5 s");
    expect(sp(withUnit(250, "ms"))).toBe("250 ms");
    expect(sp(withUnit(48000, "Hz"))).toBe("48 kHz");
    expect(sp(withUnit(-23.14, "LUFS"))).toBe("-23.1 LUFS");
    expect(sp(withUnit(2100, "bytes"))).toBe("2.1 KB");
    expect(sp(withUnit(301, "px"))).toBe("301 px");
    expect(sp(withUnit(1900, "kbps"))).toBe("1,900 kbps");
    expect(sp(bytes(43))).toBe("43 B");
    expect(sp(bytes(5_000_000))).toBe("5 MB");
    expect(sp(ms(35))).toBe("35 ms");
  });

  it("report fields by name", () => {
    expect(sp(byKey("memory_usage", 1048576))).toBe("1.05 MB");
    expect(sp(byKey("bit_rate", 128000))).toBe("128 kbps");
    expect(sp(byKey("frame_rate", 29.97))).toBe("30 fps");
    expect(sp(byKey("lra", 4.24))).toBe("4.2 LU");
    expect(sp(byKey("expires", -1))).toBe("session");
    expect(sp(byKey("timestamp", 1763726400))).toBe("2025-11-21 12:00:00 UTC");
    expect(sp(byKey("secure", true))).toBe("yes");
    expect(sp(byKey("httpOnly", false))).toBe("no");
    expect(sp(byKey("leading_silence_ms", 1000))).toBe("1 s");
    expect(sp(byKey("clipped_samples", 68000))).toBe("68,000");
  });

  it("test results: yes/no for flags, ranges with units, not measured when there is no value", () => {
    const html = page("tag_v3", {
      scan_results: {
        passed: 1, failed: 1,
        tests: {
          cpu_usage: { name: "CPU Usage", data_type: "float", unit: "%", expected: 30, expected_text: "", operator: "<", actual: 1.1764705882352942, result: "passed", message: "" },
          ssl: { name: "SSL", data_type: "bool", unit: "", expected: 1, expected_text: "", operator: "==", actual: 0, result: "failed", message: "SSL: no, but expected all requests use https" },
          loudness: { name: "Loudness", data_type: "float", unit: "LUFS", expected: "-26#-22", expected_text: "", operator: "><", result: "error", message: "" },
        },
      },
    });
    expect(html).toContain(`<td class="num">1.2 %</td>`);
    expect(html).toContain(`<td class="num">no</td><td>yes</td>`);
    expect(html).toContain("between -26 LUFS and -22 LUFS");
    expect(html).toContain(`<td class="num">not measured</td>`);
    expect(html).not.toContain("1.17647");
    // Failed first in the table and in the verdict, with the reason without the repeated name.
    expect(html.indexOf("r-failed\">failed")).toBeLessThan(html.indexOf("r-passed\">passed</span></td>"));
    expect(html).toContain("<strong>SSL</strong><p>no, but expected all requests use https</p>");
    expect(html).toContain(`<td class="num">no</td><td>yes</td><td>no, but expected all requests use https</td>`);
    expect(html).not.toContain("SSL: no");
    expect(html).toContain(`<h2 id="h-verdict">Failed</h2>`);
  });

  it("VAST groups read as places", () => {
    expect(groupLabel("xml")).toBe("VAST document");
    expect(groupLabel("creative_0_mediafile_1")).toBe("Creative 1, media file 2");
    expect(groupLabel("creative_2_nonlinear_0")).toBe("Creative 3, overlay 1");
  });
});

describe("report page: what it shows", () => {
  it("network: a waterfall on start times when the report has them, durations alone otherwise; vendors by domain", () => {
    const responses = [
      { url: "https://creative.cva.invalid/index.html", timing: 20, bytes: 900, status: 200, resource_type: "document", started: 0 },
      { url: "https://ad.doubleclick.net/x.js", timing: 100, bytes: 2000, status: 200, resource_type: "script", started: 50 },
      { url: "http://tracker.example.co.uk/p.gif", timing: 10, bytes: 43, status: 0, resource_type: "image", is_pixel: true, started: 160, failure: "refused" },
    ];
    const timed = page("tag_v3", { network: { load_size: { initial_load: 2943, host_initiated_subload: 0, total: 2943 }, responses } });
    // span = 170 ms × 1.02: the second bar starts at 50/173.4 → x 288 and is 100/173.4 → 577 wide.
    expect(timed).toContain(`<rect class="req" x="288" y="1" width="577" height="8"/>`);
    expect(timed).toContain(`<rect class="req own" x="0"`);
    expect(timed).toContain(`<rect class="req insecure" x="923"`);
    expect(timed).toContain("<th scope=\"col\" class=\"num\">Start</th>");
    expect(timed).toContain("<td>the creative</td>");
    expect(timed).toContain("<td>doubleclick.net</td>");
    expect(timed).toContain("tracker.example.co.uk");
    expect(timed).toContain(`<span class="flag bad">failed</span> refused`);
    expect(timed).toContain("<td>2.94 KB</td>");
    const untimed = page("tag_v3", { network: { responses: responses.map(({ started: _s, ...r }) => r) } });
    expect(untimed).not.toContain(">Start</th>");
    expect(untimed).toContain("but not when it started");
    expect(vendorOf("a.b.doubleclick.net")).toBe("doubleclick.net");
    expect(vendorOf("x.co.uk")).toBe("x.co.uk");
    expect(vendorOf("93.184.216.34")).toBe("93.184.216.34");
  });

  it("privacy: each consent state, what happened after the user refused, the macros and the domains outside the list, escaped", () => {
    const privacy = {
      states: [
        { state: "no_cmp", cookies: [{ name: "uid", domain: "publisher.test" }], storage_keys: ["uid"], third_party_domains: ["tracker.test"], requests: 2, pixels: 1, signal: "", error: "", watched_ms: 1500 },
        { state: "tcf_denied", cookies: [], storage_keys: [], third_party_domains: [], requests: 0, pixels: 0, signal: "TCF", error: "cut short by the scan's deadline", watched_ms: 900 },
        { state: "gpp_us_opt_out", cookies: [{ name: "uid", domain: "publisher.test" }], storage_keys: ["uid"], third_party_domains: ["tracker.test"], requests: 2, pixels: 1, signal: "GPP", error: "", watched_ms: 1500, derived_from: "no_cmp", derived_reason: "not rendered: <b>x</b>" },
      ],
      consent_signals: ["__tcfapi"],
      reads_consent: true,
      consent_calls: [{ state: "tcf_denied", api: "__tcfapi", command: "getTCData", count: 2, via_post_message: true }],
      consent_macros: [{ macro: "${GDPR_CONSENT_755}", host: "ads.dsp.test", found_in: "markup", filled: true, vendor_id: 755, host_vendor: {}, vendor_matches: false }],
      violations: [{ state: "tcf_denied", kind: "tracking_request", what: `http://tracker.test/p.gif?${HOSTILE}`, domain: "tracker.test" }],
      allowed_domains: ["publisher.test"],
      unapproved_domains: ["tracker.test"],
    };
    const html = page("tag_v3", { privacy });
    inert(html);
    expect(html).toContain(`<h2 id="h-privacy">Privacy and consent</h2>`);
    expect(html).toContain("TCF v2.2: nothing consented<br><small>cut short by the scan&#39;s deadline</small>");
    expect(html).toContain("uid (publisher.test)");
    expect(html).toContain("GPP US national: opted out, GPC<br><small>derived from no_cmp: not rendered: &lt;b&gt;x&lt;/b&gt;</small>");
    expect(html).toContain("(looked for: <code>__tcfapi</code>)");
    expect(html).toContain(HOSTILE_ESCAPED);
    expect(html).toContain(`tcf_denied: __tcfapi(&quot;getTCData&quot;) × 2 by postMessage`);
    expect(html).toContain("<code>${GDPR_CONSENT_755}</code>");
    expect(html).toContain("Outside allowed_domains (publisher.test)");
    // A report without consent runs (v2, or stored before them) has no such section.
    expect(page("tag_v3", { privacy: { states: [] } })).not.toContain("h-privacy");
  });

  it("animation: first paint and end of motion on a timeline, the guideline's limit, and the -1 cases in words", () => {
    const tests = { animation_duration: { name: "Animation Duration", data_type: "int", unit: "ms", expected: 15000, operator: "<=", actual: 1500, result: "passed", message: "" } };
    const html = page("tag_v3", { time_to_visual_start: 250, animation_duration: 1500, scan_results: { passed: 1, failed: 0, tests } });
    expect(html).toContain("250 ms after the tag started loading");
    expect(html).toContain("1.75 s after the tag started loading");
    expect(html).toContain("motion must end within 15 s of first paint");
    // The axis spans the limit (250 + 15 000 ms, +5 %): first paint at x 16 of 1000, motion until x 109.
    expect(html).toContain(`<rect class="motion" x="16" y="4" width="93" height="16"/>`);
    expect(page("tag_v3", { time_to_visual_start: -1, animation_duration: -1 })).toContain("nothing was painted");
    expect(page("tag_v3", { time_to_visual_start: 100, animation_duration: -1 })).toContain("still moving when the scan ended");
  });

  it("zip: backup image, files, images with what re-encoding would save", () => {
    const html = page("zip_v3", {
      has_backup_ad: true, backup_ad: "backup.jpg", click_tag_used: true, dimensions: { text: "300x250", width: 300, height: 250 },
      file_structure: [{ name: "index.html", bytes: 1200, type: "html" }],
      images: [{ name: "a.png", bytes: 5000, reencoded_bytes: 3000, width: 300, height: 250, error: "" }],
    });
    expect(html).toContain("HTML5 zip report");
    expect(html).toContain("<code>backup.jpg</code>");
    expect(html).toContain("<td class=\"num\">40 %</td>");
    expect(html).toContain("1.2 KB");
  });

  it("VAST: the wrapper chain with why it stopped and the IAB schema's findings by line; lint findings, most severe first", () => {
    const html = page("vast_v3", {
      type: "wrapper", ads: [], creatives: [], errors: [],
      wrapper_chain: [
        { url: "https://a.example/w.xml", http_code: 200, load_time: 80, type: "wrapper", vast_version: "4.1", error: "" },
        { url: "https://dead.example/v.xml", http_code: 0, type: "unavailable", vast_version: "", error: "wrapper target 1 https://dead.example/v.xml could not be fetched: DNS lookup of dead.example failed: no such host (ENOTFOUND)" },
      ],
      schema_checks: [{ hop: 0, schema: "vast_4.1.xsd", findings: [{ line: 7, message: "Element 'Sponsor': This element is not expected." }], error: "" }],
      lint: [
        { rule: "vast.tracking.https", severity: "warning", message: "Tracking URL over http", path: "/VAST/Ad/InLine", line: 12, spec: "VAST 4.1 §3.14" },
        { rule: "vast.duration.format", severity: "error", message: `Duration ${HOSTILE} is not HH:MM:SS`, path: "/VAST/Ad/InLine/Creatives", line: 20, spec: "VAST 4.1 §3.9.1" },
      ],
    });
    expect(html).toContain("Wrapper chain");
    expect(html).toContain("DNS lookup of dead.example failed");
    expect(html).toContain("line 7: Element &#39;Sponsor&#39;");
    expect(html).toContain("<td class=\"num\">no answer</td>");
    expect(html.indexOf("vast.duration.format")).toBeLessThan(html.indexOf("vast.tracking.https"));
    expect(html).toContain("line 12, /VAST/Ad/InLine");
    expect(html).toContain(HOSTILE_ESCAPED);
    inert(html);
  });

  it("VAST: every lint finding with where it is and its specification section, errors first", () => {
    const html = page("vast_v3", {
      type: "inline", ads: [], creatives: [], errors: [], wrapper_chain: [{ url: "https://a.example/i.xml", http_code: 200, type: "inline", vast_version: "4.2", error: "", lint_rules: 240 }],
      lint: [
        { rule: "vast.url.insecure", severity: "info", group: "urls", hop: 0, line: 12, path: "/VAST/Ad[1]/InLine/Impression[1]", spec: "VAST 4.2 §2.3.2", message: "<Impression> is http" },
        { rule: "vast.inline.ad-system.required", severity: "error", group: "required_elements", hop: 0, line: 4, path: "/VAST/Ad[1]/InLine", spec: "VAST 4.2 §3.4.1 <AdSystem>", message: "<InLine> has no <AdSystem>" },
      ],
    });
    expect(html).toContain("VAST lint");
    expect(html).toContain("VAST 4.2 §3.4.1 &lt;AdSystem&gt;");
    expect(html).toContain("document 1, line 4, /VAST/Ad[1]/InLine");
    expect(html.indexOf("vast.inline.ad-system.required")).toBeLessThan(html.indexOf("vast.url.insecure"));
    expect(html).toMatch(/<td class="num">240<\/td>/);
  });

  it("VAST: tracker URLs with a fault, and only those", () => {
    const html = page("vast_v3", {
      type: "inline", ads: [], creatives: [], errors: [], wrapper_chain: [],
      trackers: [
        { url: "https://t.example/ok", kind: "tracking", hop: 0, host: "t.example", resolves: true, tls_valid: true, non_production: "", insecure_on_https: false, macro_problems: [], network_checked: true, error: "" },
        { url: "https://tls.example/fq", kind: "tracking", hop: 0, host: "tls.example", resolves: true, tls_valid: false, non_production: "", insecure_on_https: false, macro_problems: [], network_checked: true, error: "TLS handshake failed: certificate has expired" },
      ],
    });
    expect(html).toContain("Tracker URLs with a fault");
    expect(html).toContain("certificate has expired");
    expect(html).not.toContain("https://t.example/ok");
  });

  it("VAST: every OM verification with its verdict, and each SIMID run's handshake", () => {
    const html = page("vast_v3", {
      type: "inline", creatives: [], errors: [], wrapper_chain: [],
      ads: [{ id: "a", type: "inline", verifications: [
        { vendor: "good.example", javascript_resource_url: "https://good.example/omid.js", checked: true, reachable: true, http_code: 200, content_type: "application/javascript", has_parameters: true, problems: [] },
        { vendor: "bad.example", javascript_resource_url: "http://bad.example/omid.js", checked: true, reachable: false, http_code: 404, has_parameters: false, problems: ["the script answered HTTP 404"] },
      ] }],
      simid: [
        { url: "https://c.example/ok.html", ad_index: 0, run: true, session_created: true, session_ms: 40, init_resolved: true, init_ms: 3, start_resolved: true, start_ms: 2, errors: [], messages: [{ type: "SIMID:Creative:reportTracking", at_ms: 60, detail: "https://t.example/x" }], session_timeout_ms: 5000, init_timeout_ms: 2000, start_timeout_ms: 2000 },
        { url: "https://c.example/mute.html", ad_index: 0, run: true, session_created: true, session_ms: 40, init_resolved: false, init_ms: -1, errors: ["no answer to SIMID:Player:init within 2 s"], messages: [], session_timeout_ms: 5000, init_timeout_ms: 2000, start_timeout_ms: 2000 },
      ],
    });
    expect(html).toContain("Open Measurement verifications");
    expect(html).toContain("the script answered HTTP 404");
    expect(html).toContain("SIMID interactive files");
    expect(html).toContain("no answer to SIMID:Player:init within 2 s");
    expect(html).toContain("SIMID:Creative:reportTracking");
    expect(html).toMatch(/resolved in 3.ms/);
  });

  it("a report kind it has never seen: its media file card, every unknown field in 'Other fields', all escaped", () => {
    const img = (id: string) => ({ bytes: 10, mime_type: "image/jpeg", url: `${BASE}/artifacts/${id}` });
    const html = page("video_v3", {
      name: HOSTILE,
      file_info: {
        container: { format: "mov,mp4" },
        video: { codec: "h264", duration: 30, frame_rate: 29.97, interlaced: false, hdr: { transfer: "smpte2084" } },
        audio: { codec: "aac", loudness: { lufs: -10.04, lra: 2 }, clipped_samples: 68000 },
        content: { black_segments: [{ start: 0, duration: 1 }], leading_silence: 1 },
      },
      duration_ms: 30000,
      analysis_error: "the video pass timed out",
      poster: img("p"), film_strip: img("f"), audio_wave: { bytes: 0, mime_type: "", url: "" },
      measurement: { confidence: "low", reasons: [`the machine was busy ${HOSTILE}`] },
      leading_silence_ms: 1000,
      held_frames: [{ start: 12.5, duration: 1.56, note: HOSTILE }],
      evil_link: "javascript:alert(1)",
      elsewhere: { url: "https://evil.example/x.png", mime_type: "image/png", bytes: 1 },
      scan_results: { passed: 0, failed: 0, tests: {} },
    });
    expect(html).toContain(`<h2 id="h-verdict">No guideline tests</h2>`);
    expect(html).toContain("<title>Video report — ");
    expect(html).toContain(`<img class="poster" src="${BASE}/artifacts/p"`);
    expect(html).toContain(`<img class="strip" src="${BASE}/artifacts/f"`);
    expect(html).toContain("the file has no keyframe index, so each tile's time is not known");
    expect(html).toContain("-10 LUFS integrated, range 2 LU");
    expect(html).toContain("<span>30 s</span>");
    expect(html).toContain("Measurement confidence: low");
    expect(html).toContain("<caption>Content</caption>");
    expect(html).toContain("<th scope=\"row\">Duration</th><td>30 s</td>");
    expect(html).toContain(`<p class="problem">the video pass timed out</p>`);
    expect(html).toContain("Other fields");
    expect(html).toContain("<th scope=\"row\">Leading silence</th><td>1 s</td>");
    expect(html).toContain("<th scope=\"col\">Note</th>");
    expect(html).toContain("<td>12.5</td><td>1.56 s</td>");
    // An image that is not ours is never embedded; a javascript: URL is text.
    expect(html).not.toContain("https://evil.example/x.png\"");
    expect(html).toContain("<td>javascript:alert(1)</td>");
    expect(html).not.toContain(`href="javascript:`);
    expect(html.split(HOSTILE_ESCAPED).length - 1).toBe(4);
    inert(html);
  });

  it("an image report (scanImage): its picture, facts by name and unit, and a GPS position left in the file said first", () => {
    const html = page("image_v3", {
      name: "banner.png", format: "png", mime_type: "image/png", file_size: 48213, width: 300, height: 250, has_alpha: false,
      animated: true, frame_count: 12, loop_count: 0, animation_duration: -1, optimized: false, potential_saving_bytes: 9100, iab_size: "300x250",
      metadata: { exif: { Software: HOSTILE }, gps: { present: true, latitude: 52.37, longitude: 4.89 } },
      screenshot: { bytes: 10, color: "#112233", mime_type: "image/png", url: `${BASE}/artifacts/s` },
      file: { name: "banner.png", sha256: "ab".repeat(32), mime_type: "image/png", declared_mime_type: "", size: 48213, url: "" },
      scan_results: { passed: 1, failed: 0, tests: { iab_size: { name: "IAB Size", data_type: "bool", unit: "", expected: 1, actual: 1, operator: "==", result: "passed", message: "IAB Size: yes" } } },
    });
    expect(html).toContain("<title>Image report — banner.png</title>");
    expect(html).toContain(`<img class="shot" src="${BASE}/artifacts/s"`);
    expect(html).toContain("<th scope=\"row\">File size</th><td>48.2 KB</td>");
    expect(html).toContain("<th scope=\"row\">Width</th><td>300 px</td>");
    expect(html).toContain("<th scope=\"row\">Plays</th><td>forever</td>");
    expect(html).toContain("<th scope=\"row\">Animation length</th><td>forever</td>");
    expect(html).toContain("a lossless re-encode saves 9.1 KB");
    expect(html).toContain("<th scope=\"row\">Has alpha</th><td><span class=\"flag\">no</span></td>");
    expect(html).toContain("A GPS position is left in the file (52.37, 4.89)");
    expect(html).toContain(`<th scope="row">SHA-256</th><td><code>${"ab".repeat(32)}</code></td>`);
    // Nothing of the image is left to "Other fields".
    expect(html).not.toContain("Other fields");
    expect(html).toContain(HOSTILE_ESCAPED);
    expect(html).toContain(`<h2 id="h-verdict">Passed</h2>`);
    inert(html);
  });

  it("media card in words: black bars in one line, a lossy codec's bit depth, clipping, ffprobe's names as people say them", () => {
    const html = page("video_v3", {
      name: "spot",
      duration: 30000,
      file_info: {
        container: { format: "mp4", duration: 30000 },
        video: { codec: "h264", pix_fmt: "yuv420p", hdr: false, frame_rate_fraction: "30000/1001", bars: { top: 40, bottom: 40, left: 0, right: 0 }, keyframe_interval: 2000 },
        audio: { codec: "aac", sample_rate: 48000, bit_depth: 0, clipping: 0 },
      },
      scan_results: { passed: 0, failed: 0, tests: {} },
    });
    const row = (k: string, v: string) => `<th scope="row">${k}</th><td>${v}</td>`;
    expect(html).toContain(row("Black bars", "top 40 px, bottom 40 px"));
    expect(html).toContain(row("Bit depth", "none (lossy codec)"));
    expect(html).toContain(row("Clipping", "none"));
    expect(html).toContain(row("Pixel format", "yuv420p"));
    expect(html).toContain(row("HDR", `<span class="flag">no</span>`));
    expect(html).toContain(row("Frame rate (exact)", "30000/1001"));
    expect(html).toContain(row("Keyframe interval", "2 s"));
    expect(html.split(row("Duration", "30 s")).length - 1).toBe(1);
    expect(html).not.toMatch(/<th scope="row">(Top|Bottom|Left|Right|Duration ms|Pix fmt|Hdr)<\/th>/);
  });

  it("flashes that could not be judged are 'not judged', not a green 'passes'; an image's error is a problem, not a bare field", () => {
    const tag = page("tag_v3", {
      accessibility: { summary: "Flashing could not be judged", flash_risk: false, flashes_judged: false, flashes_not_judged_reason: "starved", max_flashes_per_second: 0 },
      scan_results: { passed: 0, failed: 0, tests: {} },
    });
    expect(tag).toContain(`<th scope="row">Seizure risk (WCAG 2.3.1)</th><td><span class="flag">not judged</span></td>`);
    expect(tag).not.toContain(">passes<");
    const judged = page("tag_v3", { accessibility: { summary: "ok", flash_risk: false, flashes_judged: true }, scan_results: { passed: 0, failed: 0, tests: {} } });
    expect(judged).toContain(`<span class="flag good">passes</span>`);
    const fine = page("image_v3", { name: "a.png", format: "png", width: 1, height: 1, error: "", scan_results: { passed: 0, failed: 0, tests: {} } });
    expect(fine).not.toContain("Other fields");
    expect(fine).not.toContain("Problems found");
    const broken = page("image_v3", { name: "a.png", format: "png", error: `could not decode ${HOSTILE}`, scan_results: { passed: 0, failed: 0, tests: {} } });
    expect(broken).toContain("Problems found");
    expect(broken).toContain(`could not decode ${HOSTILE_ESCAPED}`);
  });

  it("has its own icon, so the browser does not ask for /favicon.ico (a 404 logged on every report opened)", () => {
    const href = /<link rel="icon" href="(assets\/icon-[0-9a-f]{12}\.svg)" type="image\/svg\+xml">/.exec(page("tag_v3", {}))?.[1];
    expect(href).toBeDefined();
    // Served beside the stylesheet (relative to /r/<token>), as an image the page's CSP admits (img-src 'self').
    expect(REPORT_ASSETS.map((a) => a.path)).toContain(`/r/${href}`);
  });

  it("a report that is not JSON, or not an object, still renders a page", () => {
    const broken = renderReportPage(create(reportstore.StoredReportSchema, { jobId: "j9", reportKind: "tag_v3", json: Buffer.from("{nope") }), { publicBaseUrl: BASE });
    expect(broken).toContain("j9");
    expect(page("vast_v3", [1, 2, 3])).toContain("VAST report");
  });
});

describe("report page and /docs: content security policies", () => {
  it("the report page allows our stylesheet and our images, nothing else; /docs our scripts and the API", () => {
    expect(reportPageCsp("https://edge.test/")).toBe(
      "default-src 'none'; style-src 'self'; img-src 'self' https://edge.test; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
    expect(docsCsp("https://edge.test")).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self' https://edge.test; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
  });
});
