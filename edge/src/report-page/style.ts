import { createHash } from "node:crypto";

// The report page's stylesheet, served as a file from our origin (CSP style-src 'self': no inline style anywhere, so a
// report string can never become CSS). Its name carries a digest of its content, so it is cached for a year and a
// new version is a new URL.
//
// Words never break inside: results, numbers and units stay on one line (nowrap); only URLs and other long tokens
// (class "url") may break anywhere. The print rules give a clean PDF from the browser: no navigation, no background
// tints except the result colours, rows and figures kept whole across pages.
export const REPORT_CSS = `
:root{--fg:#1d2430;--muted:#4f5a68;--line:#d5dbe3;--bg:#f6f7f9;--card:#fff;--ok:#17632a;--ok-bg:#dff5e3;--bad:#8a1c14;--bad-bg:#fde2e1;--warn:#6b4500;--warn-bg:#fff1cc;--accent:#1f5fbf}
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,"Liberation Sans",sans-serif;margin:0;color:var(--fg);background:var(--bg);line-height:1.45;font-size:15px}
a{color:var(--accent)}
.top{background:#1d2430;color:#fff;padding:20px 0 16px}
.top .wrap,main,.toc ul,footer{max-width:1180px;margin:0 auto;padding:0 24px}
.kicker{margin:0;color:#c9d2de;font-size:.85rem;letter-spacing:.02em}
h1{font-size:1.6rem;margin:4px 0 6px;overflow-wrap:anywhere}
.top .sub{margin:0;color:#dbe2ea;font-size:.9rem}
.top .sub code{color:#fff}
.toc{background:#fff;border-bottom:1px solid var(--line)}
.toc ul{list-style:none;display:flex;flex-wrap:wrap;gap:4px 16px;padding-top:8px;padding-bottom:8px;margin:0 auto}
.toc a{text-decoration:none;font-size:.88rem;white-space:nowrap}
.toc a:hover,.toc a:focus{text-decoration:underline}
main{padding-top:20px;padding-bottom:40px}
section{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:16px 20px;margin:0 0 18px}
h2{font-size:1.2rem;margin:0 0 12px}
h3{font-size:1rem;margin:18px 0 8px}
h4{font-size:.95rem;margin:14px 0 6px}
p{margin:6px 0}
.note{color:var(--muted);font-size:.88rem}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace;font-size:.85em}
code.id{color:var(--muted)}
.url{overflow-wrap:anywhere;word-break:normal}
.nowrap,.num,.badge,.flag,.tag,.sev{white-space:nowrap}
.verdict{border-left:8px solid var(--muted)}
.verdict h2{font-size:1.5rem;margin-bottom:6px}
.v-failed{border-left-color:var(--bad)} .v-failed h2{color:var(--bad)}
.v-passed{border-left-color:var(--ok)} .v-passed h2{color:var(--ok)}
.v-incomplete{border-left-color:#b07800} .v-incomplete h2{color:var(--warn)}
.counts{display:flex;flex-wrap:wrap;gap:8px;margin:4px 0 8px}
.badge{display:inline-block;padding:1px 8px;border-radius:10px;font-weight:600;font-size:.85rem}
.r-passed{background:var(--ok-bg);color:var(--ok)} .r-failed{background:var(--bad-bg);color:var(--bad)} .r-error{background:var(--warn-bg);color:var(--warn)}
.findings{margin:0;padding-left:22px}
.findings li{margin:8px 0}
.findings p{margin:2px 0 0}
.where{color:var(--muted);font-size:.88rem}
.confidence{margin:8px 0;padding:8px 12px;border-radius:6px;background:#eef3fb}
.flag.good{color:var(--ok);font-weight:600} .flag.bad{color:var(--bad);font-weight:600}
.tag{display:inline-block;font-size:.75rem;border:1px solid var(--line);border-radius:4px;padding:0 4px;margin-left:4px;color:var(--muted)}
.tag.bad{border-color:#e3a29d;color:var(--bad);background:var(--bad-bg)}
.problem{color:var(--bad)}
.scroll{overflow-x:auto}
table{border-collapse:collapse;font-size:.88rem}
table.data{width:100%}
table.data th,table.data td{border-bottom:1px solid var(--line);padding:6px 8px;text-align:left;vertical-align:top;overflow-wrap:break-word}
table.data thead th{background:#eef1f5;border-bottom:2px solid var(--line)}
table.data td.url{overflow-wrap:anywhere}
table.data td.num,table.data th.num{text-align:right;font-variant-numeric:tabular-nums}
caption{text-align:left;font-weight:600;padding:4px 0}
table.kv{margin:0 0 8px;min-width:0}
table.kv th{font-weight:600;text-align:left;vertical-align:top;padding:3px 16px 3px 0;color:var(--muted);white-space:nowrap}
table.kv td{padding:3px 0;vertical-align:top;overflow-wrap:break-word}
.glance .cols{display:grid;grid-template-columns:repeat(auto-fit,minmax(280px,1fr));gap:0 32px}
.cols{display:grid;grid-template-columns:repeat(auto-fit,minmax(260px,1fr));gap:8px 24px;align-items:start}
.tests td:nth-child(1){width:1%}
.screens{display:grid;grid-template-columns:repeat(auto-fit,minmax(300px,1fr));gap:24px;align-items:start}
figure{margin:0}
figcaption{color:var(--muted);font-size:.88rem;margin-top:6px}
.shot{max-width:100%;height:auto;border:1px solid var(--line);background:#fff;display:block}
.shot.lp{max-height:520px;object-fit:contain;object-position:top left}
.placeholder{border:1px dashed var(--line);padding:24px;color:var(--muted);text-align:center}
.swatch{width:12px;height:12px;vertical-align:-1px;border:1px solid var(--line)}
svg.tl{display:block;width:100%;height:28px;margin:8px 0 2px}
svg.tl .loading{fill:#cfd6df} svg.tl .motion{fill:#5b8fd9} svg.tl .motion.endless{fill:#b9cbe6}
svg.tl .mark{fill:#1d2430} svg.tl .mark.end{fill:#1f5fbf} svg.tl .limit{fill:var(--bad)}
.axis{display:flex;justify-content:space-between;color:var(--muted);font-size:.8rem;margin-bottom:8px}
table.waterfall td:last-child{min-width:180px;width:28%}
svg.wf{display:block;width:100%;height:12px;margin-top:4px}
svg.wf .req{fill:#5b8fd9} svg.wf .req.own{fill:#7aa874} svg.wf .req.insecure{fill:#c2413a}
.media{border-top:1px solid var(--line);padding-top:8px;margin-top:12px}
.media-visuals{display:grid;grid-template-columns:repeat(auto-fit,minmax(240px,1fr));gap:16px;align-items:start;margin:8px 0}
.strip-fig{grid-column:1/-1}
.strip-times{display:flex;list-style:none;margin:2px 0 0;padding:0;font-size:.8em;color:var(--muted)}
.strip-times li{flex:1 1 0;text-align:center;white-space:nowrap}
.shot-wrap{position:relative;display:inline-block;max-width:100%}
.shot-wrap svg.click{position:absolute;left:0;top:0;width:100%;height:100%;pointer-events:none}
svg.click .ring{fill:none;stroke:#c2413a;stroke-width:3} svg.click .dot{fill:#c2413a}
.film{display:flex;flex-wrap:wrap;gap:8px}
.frame-fig{flex:0 1 160px;text-align:center}
img.frame,svg.frame{max-width:100%;height:auto;display:block;border:1px solid var(--line);background:#fff}
img.poster,img.wave,img.strip,img.thumb{max-width:100%;height:auto;display:block;border:1px solid var(--line);background:#000}
/* A small video's poster, film strip and waveform fill their column rather than sitting at a few dozen pixels. */
img.poster,img.wave,img.strip{width:100%}
img.wave{background:#fff}
img.thumb{max-width:240px}
.creative{margin-bottom:12px}
pre.xml{white-space:pre-wrap;overflow-wrap:anywhere;background:#f3f5f8;border:1px solid var(--line);padding:10px;max-height:480px;overflow:auto}
.sev{font-weight:600} .sev-error{color:var(--bad)} .sev-warning{color:var(--warn)}
ul.plain{padding-left:20px;margin:4px 0}
ul.plain li{margin:2px 0}
footer{color:var(--muted);font-size:.82rem;padding-bottom:32px}
a:focus-visible,.scroll:focus-visible{outline:2px solid var(--accent);outline-offset:2px}
@media (max-width:640px){.top .wrap,main,.toc ul,footer{padding:0 12px}section{padding:12px}}
@media print{
  @page{margin:14mm 12mm}
  body{background:#fff;font-size:10.5pt}
  .toc,footer .screen-only{display:none}
  .top{background:#fff;color:#000;border-bottom:2px solid #000;padding:0 0 6px}
  .top .wrap,main,footer{max-width:none;padding:0}
  .kicker,.top .sub{color:#333} .top .sub code{color:#000}
  section{border:0;border-radius:0;padding:0;margin:0 0 14pt;break-inside:auto}
  .verdict{border-left-width:6px;padding-left:10pt}
  h2,h3,h4{break-after:avoid}
  tr,figure,.findings li,table.kv{break-inside:avoid}
  thead{display:table-header-group}
  .scroll{overflow:visible}
  pre.xml{max-height:none;overflow:visible}
  .badge,.tag,svg,.verdict,.flag{-webkit-print-color-adjust:exact;print-color-adjust:exact}
  a{color:inherit;text-decoration:none}
  .shot.lp{max-height:none}
}
`;

const digest = createHash("sha256").update(REPORT_CSS).digest("hex").slice(0, 12);

/** Path of the stylesheet under the report pages (/r/<token>): the page links it relatively, as assets/<name>. */
export const REPORT_CSS_NAME = `report-${digest}.css`;

/**
 * The pages' icon, a file of ours like the stylesheet (the report page's CSP admits no data: image): without one the
 * browser asks for /favicon.ico and logs the 404 as an error on every report opened.
 */
export const REPORT_ICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#1d2430"/><path d="M4 8.5l2.5 2.5L12 5.5" fill="none" stroke="#7ee08f" stroke-width="2"/></svg>`;

export const REPORT_ICON_NAME = `icon-${createHash("sha256").update(REPORT_ICON_SVG).digest("hex").slice(0, 12)}.svg`;
