import { renderMediaAccessibility } from "./media-accessibility.ts";
import { byKey, label, ms, num, withUnit } from "../format.ts";
import { artifactImage, bulletList, esc, finite, isObj, kvTable, list, obj, objs, safeUrl, table, text, type J } from "../html.ts";
import { genericValue } from "./generic.ts";
import { filmStrip } from "./visuals.ts";

// Video and audio: each media file with its poster, film strip, waveform and loudness beside what ffprobe read; the
// VAST document around them (creatives, overlays, wrapper chain, ads, schema and lint findings). The media file card
// takes any object with file_info / poster / film_strip / audio_wave, so a video or audio report renders with it too.

/**
 * One info object (video, audio, container, content, or one added later) as label/value rows, units by field name;
 * `skip` names fields another row already shows.
 */
function infoRows(info: J, base: string, skip: readonly string[] = []): Array<[string, string]> {
  return Object.entries(info)
    .filter(([k, v]) => v !== "" && v !== undefined && v !== null && !skip.includes(k))
    .map(([k, v]): [string, string] => {
      if (k === "loudness" && isObj(v)) return ["Loudness", esc(loudness(v))];
      if (k === "bars" && isObj(v)) return ["Black bars", esc(bars(v))];
      // 0 is the API's "none": a lossy codec stores no bits per sample.
      if (k === "bit_depth" && v === 0 && "sample_rate" in info) return ["Bit depth", "none (lossy codec)"];
      if (k === "clipping" && typeof v === "number") return ["Clipping", esc(v === 0 ? "none" : `${num(v)} samples at full scale`)];
      return [label(k), genericValue(k, v, base, 1) || "—"];
    });
}

/** The black bars' sizes in display pixels, in one line: "none", or "top 40 px, bottom 40 px". */
function bars(b: J): string {
  const sides = (["top", "bottom", "left", "right"] as const).filter((s) => finite(b[s]) !== undefined && b[s] > 0);
  return sides.length === 0 ? "none" : sides.map((s) => `${s} ${withUnit(b[s], "px")}`).join(", ");
}

function loudness(l: J): string {
  const lufs = finite(l.lufs);
  if (lufs === undefined) return "not measured";
  const lra = finite(l.lra);
  return `${withUnit(lufs, "LUFS")} integrated${lra === undefined ? "" : `, range ${withUnit(lra, "LU")}`}`;
}

export function mediaFileCard(m: J, title: string, base: string): string {
  const fi = obj(m.file_info);
  const video = obj(fi.video);
  const audio = obj(fi.audio);
  const duration = finite(video.duration) ?? finite(audio.duration) ?? (finite(m.duration_ms) !== undefined ? m.duration_ms / 1000 : undefined);
  const notMeasured = list(m.not_measured).map(text);
  const problems = [text(m.error) || text(m.analysis_error), notMeasured.length ? `not measured: ${notMeasured.join(", ")}` : ""].filter(Boolean);
  const poster = artifactImage(m.poster, "Poster: the frame at mid-duration", base, { className: "poster" });
  const wave = artifactImage(m.audio_wave, "Waveform of the audio track", base, { className: "wave" });
  // Poster and waveform side by side, the film strip below them across the width.
  const visuals = [
    poster ? `<figure class="poster-fig">${poster}<figcaption>Poster (the frame at mid-duration)</figcaption></figure>` : "",
    wave || isObj(audio.loudness)
      ? `<figure class="wave-fig">${wave}<figcaption>Audio${audio.loudness ? `: ${esc(loudness(obj(audio.loudness)))}` : ""}</figcaption></figure>`
      : "",
    filmStrip(m.film_strip, base, duration, m.film_strip_times),
  ].join("");
  const attrs = obj(m.attributes);
  const file: Array<[string, string]> = [
    ["URL", m.url ? `<a class="url" href="${safeUrl(m.url)}" rel="noopener noreferrer nofollow">${esc(m.url)}</a>` : ""],
    ["HTTP status", m.http_code === undefined ? "" : esc(m.http_code === 0 ? "no answer" : m.http_code)],
    ["File size", m.file_size === undefined ? "" : esc(byKey("file_size", m.file_size))],
    ["Download speed", m.download_speed === undefined ? "" : esc(byKey("download_speed", m.download_speed))],
    ["Duration", finite(m.duration_ms) === undefined ? "" : esc(ms(m.duration_ms))],
    ["Declared in the VAST", Object.keys(attrs).length ? esc(declared(attrs)) : ""],
    // A raw file's container duration is the same figure as the report's duration (fileMediaCard): shown once.
    ...infoRows(obj(fi.container), base, finite(m.duration_ms) !== undefined ? ["duration_ms"] : []),
  ];
  // Any other part of file_info (the raw file scans' content: black, silence, freezes; one added later) gets its own table.
  const more = Object.entries(fi).filter(([k, v]) => !["container", "video", "audio"].includes(k) && isObj(v) && Object.keys(v).length);
  return `<article class="media"><h3>${esc(title)}</h3>
${problems.length ? `<p class="problem">${esc(problems.join(". "))}</p>` : ""}
${visuals ? `<div class="media-visuals">${visuals}</div>` : ""}
<div class="cols">${kvTable(file, "File")}${kvTable(infoRows(video, base), "Video")}${kvTable(infoRows(audio, base), "Audio")}${more.map(([k, v]) => kvTable(infoRows(v, base), label(k))).join("")}</div>
${m.url !== undefined ? renderMediaAccessibility(obj(m.accessibility), { heading: "Accessibility" }) : ""}
</article>`;
}

function declared(a: J): string {
  return [
    text(a.type),
    a.width || a.height ? `${text(a.width)}×${text(a.height)}` : "",
    a.bitrate ? withUnit(a.bitrate, "kbps") : "",
    text(a.delivery),
    a.codec ? `codec ${text(a.codec)}` : "",
  ].filter(Boolean).join(", ");
}

export function renderVastCreatives(report: J, base: string): string {
  const creatives = objs(report.creatives);
  if (creatives.length === 0) return "<p>No creatives.</p>";
  return creatives
    .map((c, ci) => {
      const files = objs(c.mediafiles);
      const overlays = objs(c.nonlinears);
      const click = text(obj(c.click_through).url);
      const facts = kvTable([
        ["Type", esc(c.type)],
        ["Duration", esc(c.duration)],
        ["Skippable", c.skip_offset === undefined ? "no" : esc(`after ${withUnit(Number(c.skip_offset), "s")}`)],
        ["Click-through", click ? `<a class="url" href="${safeUrl(click)}" rel="noopener noreferrer nofollow">${esc(click)}</a>` : "none"],
      ]);
      const nothing = files.length === 0 && overlays.length === 0 ? `<p class="problem">Nothing to play: no media file and no overlay.</p>` : "";
      const cards = files.map((m, fi) => mediaFileCard(m, `Creative ${ci + 1}, media file ${fi + 1}`, base)).join("");
      const ov = overlays.length
        ? `<h4>Overlays</h4>${table(
            [{ head: "#", kind: "num" }, { head: "Resource", kind: "url" }, { head: "Type" }, { head: "Size", kind: "nowrap" }, { head: "HTTP", kind: "num" }, { head: "Problem" }],
            overlays.map((o, oi) => [esc(oi + 1), esc(o.resource_url), esc(o.resource_type), esc(`${text(o.width)}×${text(o.height)}`), esc(o.http_code), esc(o.error)]),
          )}`
        : "";
      return `<div class="creative"><h3>Creative ${ci + 1}</h3>${facts}${nothing}${cards}${ov}</div>`;
    })
    .join("");
}

export function renderWrapperChain(report: J): string {
  const hops = objs(report.wrapper_chain);
  if (hops.length === 0) return "";
  const checks = objs(report.schema_checks);
  return table(
    [{ head: "Hop", kind: "num" }, { head: "URL", kind: "url" }, { head: "HTTP", kind: "num" }, { head: "Load time", kind: "num" }, { head: "Document" }, { head: "Why it stopped" }, { head: "IAB schema" }, { head: "Lint rules run", kind: "num" }],
    hops.map((h, i) => {
      const check = checks.find((c) => c.hop === i);
      const findings = objs(check?.findings);
      const schema = !check ? "" : check.schema
        ? findings.length ? findings.slice(0, 10).map((f) => `line ${text(f.line)}: ${text(f.message)}`).join("; ") + (findings.length > 10 ? ` (${findings.length - 10} more)` : "") : `valid (${text(check.schema)})`
        : text(check.error);
      return [
        esc(i), esc(h.url), esc(h.http_code === 0 ? "no answer" : h.http_code), esc(h.load_time === undefined ? "" : ms(h.load_time)),
        esc(`${text(h.type)} ${text(h.vast_version)}`.trim()), esc(h.error), esc(schema), esc(h.lint_rules ?? ""),
      ];
    }),
  );
}

export function renderAds(report: J): string {
  const ads = objs(report.ads);
  if (ads.length === 0) return "";
  return table(
    [{ head: "Ad", kind: "nowrap" }, { head: "Type" }, { head: "Ad system / title" }, { head: "Impressions", kind: "num" }, { head: "Tracking" }, { head: "Verification" }, { head: "Interactive" }, { head: "Problem" }],
    ads.map((a, i) => [
      esc(`${i + 1}${a.id ? ` (${text(a.id)})` : ""}${a.sequence ? `, #${text(a.sequence)} in pod` : ""}`),
      esc(a.type) + (a.vpaid ? ` <span class="tag bad">VPAID</span>` : ""),
      esc([text(a.ad_system), text(a.ad_title)].filter(Boolean).join(" / ")),
      esc(num(finite(a.impressions) ?? 0)),
      esc(list(a.tracking_events).map(text).join(", ")),
      esc(objs(a.verifications).map((v) => text(v.vendor) || text(v.javascript_resource_url)).join(", ")),
      esc(objs(a.interactive_files).map((f) => text(f.api_framework) || text(f.type)).join(", ")),
      esc(a.error),
    ]),
  );
}

const SEVERITY_ORDER: Record<string, number> = { error: 0, warning: 1, info: 2 };

/** Lint findings (rule, severity, message, path, line, spec), the most severe first. */
export function renderLint(report: J): string {
  const findings = objs(report.lint);
  if (findings.length === 0) return "<p>No lint findings.</p>";
  const sorted = findings.map((f, i) => ({ f, i })).sort((a, b) => (SEVERITY_ORDER[text(a.f.severity)] ?? 3) - (SEVERITY_ORDER[text(b.f.severity)] ?? 3) || a.i - b.i);
  return table(
    [{ head: "Severity", kind: "nowrap" }, { head: "Rule", kind: "url" }, { head: "Finding" }, { head: "Where", kind: "url" }, { head: "Spec" }],
    sorted.map(({ f }) => [
      `<span class="sev sev-${esc(SEVERITY_ORDER[text(f.severity)] === undefined ? "other" : f.severity)}">${esc(f.severity)}</span>`,
      `<code>${esc(f.rule)}</code>`,
      esc(f.message),
      // hop: which document of the wrapper chain (the VAST URL's is document 1).
      esc([finite(f.hop) !== undefined ? `document ${f.hop + 1}` : "", f.line ? `line ${text(f.line)}` : "", text(f.path)].filter(Boolean).join(", ")),
      esc(typeof f.spec === "string" ? f.spec : isObj(f.spec) ? Object.values(f.spec).map(text).join(" ") : ""),
    ]),
    { max: 500 },
  );
}

/** VAST: the tracker URLs with a fault (host, TLS, test host, mixed content, macros), checked without their request. */
export function renderTrackers(report: J): string {
  const rows = objs(report.trackers).flatMap((t) => {
    const problems = [
      typeof t.error === "string" && t.error !== "" && !t.error.startsWith("not checked") ? t.error : "",
      t.non_production ? `host is ${text(t.non_production)}` : "",
      t.insecure_on_https ? "http: on an https ad" : "",
      ...list(t.macro_problems).map(text),
    ].filter(Boolean);
    const doc = finite(t.hop) !== undefined ? `document ${t.hop + 1}` : "";
    return problems.length === 0 ? [] : [[esc(doc), esc(t.kind), esc(t.url), esc(problems.join("; "))]];
  });
  if (rows.length === 0) return "";
  return table([{ head: "Where", kind: "nowrap" }, { head: "Kind" }, { head: "URL", kind: "url" }, { head: "Fault" }], rows, { max: 500 });
}

export function renderXml(report: J, maxChars = 20_000): string {
  const xml = obj(report.xml);
  if (Object.keys(xml).length === 0) return "";
  const rows = kvTable([
    ["Content-Type", esc(xml.content_type)],
    ["HTTP status", esc(xml.http_code === 0 ? "no answer" : xml.http_code)],
    ["Size", xml.file_size === undefined ? "" : esc(byKey("file_size", xml.file_size))],
    ["Load time", xml.load_time === undefined ? "" : esc(ms(xml.load_time))],
  ]);
  let body = "";
  if (typeof xml.data_base64 === "string" && xml.data_base64) {
    const decoded = Buffer.from(xml.data_base64, "base64").toString("utf8");
    body = `<pre class="xml">${esc(decoded.slice(0, maxChars))}</pre>${decoded.length > maxChars ? `<p class="note">First ${esc(num(maxChars))} characters of ${esc(num(decoded.length))}.</p>` : ""}`;
  }
  return rows + body;
}

export function renderPixels(report: J): string {
  return bulletList(list(obj(report.pixels).impression).map(text), { code: true });
}
