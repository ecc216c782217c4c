import { bytes, ms, num } from "../format.ts";
import { esc, finite, kvTable, obj, objs, table, text, type J } from "../html.ts";

// The network as a waterfall: every request with its start and duration, size, type, who served it, insecure ones
// marked. Positions are SVG attributes (the CSP allows no style attributes).

const MAX_ROWS = 500;
/** Where the tag scanner serves the creative's own files (tag markup, zip contents): not a third party. */
const CREATIVE_HOST = /(^|\.)cva\.invalid$/;

function hostOf(url: string): string {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return "";
  }
}

/** The registrable domain, near enough to name a vendor: a.b.doubleclick.net → doubleclick.net, x.co.uk → x.co.uk. */
export function vendorOf(host: string): string {
  if (/^[\d.]+$/.test(host) || host.includes(":")) return host;
  const labels = host.split(".").filter(Boolean);
  if (labels.length <= 2) return host;
  const [sld, tld] = labels.slice(-2) as [string, string];
  const keep = tld.length === 2 && sld.length <= 3 ? 3 : 2;
  return labels.slice(-keep).join(".");
}

interface Req {
  r: J;
  url: string;
  host: string;
  started?: number;
  timing: number;
  insecure: boolean;
  own: boolean;
}

export function renderNetwork(report: J): string {
  const net = obj(report.network);
  const responses = objs(net.responses);
  const load = obj(net.load_size);
  const reqs: Req[] = responses.map((r) => {
    const url = text(r.url);
    const host = hostOf(url);
    return {
      r, url, host,
      started: finite(r.started),
      timing: Math.max(0, finite(r.timing) ?? 0),
      insecure: url.startsWith("http://") || url.startsWith("ws://"),
      own: CREATIVE_HOST.test(host),
    };
  });
  const thirdParty = reqs.filter((q) => !q.own && q.host);
  const vendors = new Map<string, { n: number; bytes: number; insecure: number }>();
  for (const q of thirdParty) {
    const v = vendors.get(vendorOf(q.host)) ?? { n: 0, bytes: 0, insecure: 0 };
    v.n++;
    v.bytes += finite(q.r.bytes) ?? 0;
    if (q.insecure) v.insecure++;
    vendors.set(vendorOf(q.host), v);
  }
  const summary = kvTable([
    ["Initial load", finite(load.initial_load) === undefined ? "" : esc(bytes(load.initial_load))],
    ["Host-initiated subload", finite(load.host_initiated_subload) === undefined ? "" : esc(bytes(load.host_initiated_subload))],
    ["Total", finite(load.total) === undefined ? "" : esc(bytes(load.total))],
    ["Requests", esc(num(reqs.length))],
    ["Third-party requests", esc(`${num(thirdParty.length)} to ${num(vendors.size)} ${vendors.size === 1 ? "domain" : "domains"}`)],
    ["Insecure (http://)", reqs.some((q) => q.insecure) ? `<span class="flag bad">${esc(num(reqs.filter((q) => q.insecure).length))}</span>` : "none"],
    ["Measurement pixels", finite(net.measurement_pixels) === undefined ? "" : esc(num(net.measurement_pixels))],
  ]);
  if (reqs.length === 0) return `${summary}<p>No network requests.</p>`;

  const positioned = reqs.some((q) => q.started !== undefined);
  const span = Math.max(1, ...reqs.map((q) => (positioned ? (q.started ?? 0) : 0) + q.timing)) * 1.02;
  const x = (t: number) => Math.round((t / span) * 1000);
  const bar = (q: Req) => {
    const start = positioned ? (q.started ?? 0) : 0;
    const cls = q.insecure ? "req insecure" : q.own ? "req own" : "req";
    return `<svg class="wf" viewBox="0 0 1000 10" preserveAspectRatio="none" aria-hidden="true"><rect class="${cls}" x="${x(start)}" y="1" width="${Math.max(3, x(q.timing))}" height="8"/></svg>`;
  };
  const rows = reqs.map((q, i) => {
    const r = q.r;
    const status = finite(r.status) ?? 0;
    const statusCell = status === 0 ? `<span class="flag bad">failed</span>${r.failure ? ` ${esc(r.failure)}` : ""}` : `${esc(status)}`;
    const tags = [
      q.insecure ? `<span class="tag bad">not secure</span>` : "",
      r.is_pixel ? `<span class="tag">pixel</span>` : "",
      text(r.method) && r.method !== "GET" ? `<span class="tag">${esc(r.method)}</span>` : "",
    ].join("");
    const party = q.own ? "the creative" : q.host ? esc(vendorOf(q.host)) : "";
    return [
      esc(i + 1),
      `<span class="url">${esc(q.url)}</span>${tags ? ` ${tags}` : ""}`,
      esc(r.resource_type),
      statusCell,
      party,
      esc(bytes(finite(r.bytes) ?? 0)),
      positioned ? esc(q.started === undefined ? "" : ms(q.started)) : "",
      esc(ms(q.timing)),
      bar(q),
    ];
  });
  const cols = [
    { head: "#", kind: "num" as const }, { head: "Request", kind: "url" as const }, { head: "Type" }, { head: "Status", kind: "nowrap" as const },
    { head: "Served by" }, { head: "Size", kind: "num" as const }, { head: "Start", kind: "num" as const }, { head: "Duration", kind: "num" as const },
    { head: positioned ? `Waterfall (0 – ${ms(span)})` : `Duration (0 – ${ms(span)})` },
  ];
  if (!positioned) {
    cols.splice(6, 1);
    for (const r of rows) r.splice(6, 1);
  }
  const note = positioned
    ? ""
    : `<p class="note">The report gives each request's duration but not when it started, so the bars show durations side by side, in the order the requests were made, not a timeline.</p>`;
  const vendorTable = vendors.size
    ? `<h3>Third parties</h3>${table(
        [{ head: "Domain" }, { head: "Requests", kind: "num" }, { head: "Size", kind: "num" }, { head: "Insecure", kind: "num" }],
        [...vendors].sort((a, b) => b[1].n - a[1].n).map(([d, v]) => [esc(d), esc(num(v.n)), esc(bytes(v.bytes)), v.insecure ? `<span class="flag bad">${esc(v.insecure)}</span>` : "0"]),
        { max: 100 },
      )}`
    : "";
  return `${summary}${vendorTable}<h3>Requests</h3>${note}${table(cols, rows, { max: MAX_ROWS, className: "waterfall" })}`;
}
