import { ms } from "../format.ts";
import { esc, finite, list, objs, table, text, type J } from "../html.ts";

// VAST: what runs beside the video — each Open Measurement verification (its script fetched as an OM SDK loads it)
// and each SIMID interactive file run behind our SIMID 1.1 player harness (createSession → Player:init →
// Player:startCreative, with the time of each answer and the creative's errors).

/** Every verification of every ad, usable or not, with what makes it unusable. */
export function renderVerifications(report: J): string {
  const rows = objs(report.ads).flatMap((a, i) =>
    objs(a.verifications).map((v) => {
      const script = !v.checked ? "not fetched" : v.reachable ? `HTTP ${text(v.http_code)}, ${text(v.content_type) || "no Content-Type"}` : v.http_code ? `HTTP ${text(v.http_code)}` : "no answer";
      const problems = list(v.problems).map(text);
      return [
        esc(`ad ${i + 1}`), esc(v.vendor), esc(v.javascript_resource_url), esc(script), esc(v.has_parameters ? "yes" : "no"),
        problems.length ? `<span class="tag bad">unusable</span> ${esc(problems.join("; "))}` : `<span class="tag good">usable</span>`,
      ];
    }),
  );
  if (rows.length === 0) return "";
  return table([{ head: "Ad", kind: "nowrap" }, { head: "Vendor" }, { head: "Script", kind: "url" }, { head: "Answer" }, { head: "Parameters" }, { head: "Verdict" }], rows);
}

function step(ok: unknown, rejected: unknown, at: unknown, timeoutMs: unknown): string {
  const t = finite(at);
  if (ok) return `resolved in ${ms(t ?? 0)}`;
  if (rejected) return `rejected in ${ms(t ?? 0)}`;
  const limit = finite(timeoutMs);
  return limit ? `no answer within ${ms(limit)}` : "no answer";
}

/** Each SIMID run: each handshake step's answer and time, then the creative's errors and messages. */
export function renderSimid(report: J): string {
  const runs = objs(report.simid);
  if (runs.length === 0) return "";
  return table(
    [{ head: "Ad", kind: "nowrap" }, { head: "Interactive file", kind: "url" }, { head: "createSession" }, { head: "Player:init" }, { head: "Player:startCreative" }, { head: "Errors" }, { head: "Messages from the creative" }],
    runs.map((r) => {
      if (!r.run) return [esc(`ad ${(finite(r.ad_index) ?? 0) + 1}`), esc(r.url), esc("not run"), "", "", esc(r.error), ""];
      const session = r.session_created ? `created in ${ms(finite(r.session_ms) ?? 0)}` : `none within ${ms(finite(r.session_timeout_ms) ?? 0)}`;
      const init = r.session_created ? step(r.init_resolved, r.init_rejected, r.init_ms, r.init_timeout_ms) : "not sent";
      const start = r.init_resolved ? step(r.start_resolved, r.start_rejected, r.start_ms, r.start_timeout_ms) : "not sent";
      const errors = [...list(r.errors).map(text), text(r.error)].filter(Boolean);
      const messages = objs(r.messages).slice(0, 20).map((m) => `${text(m.type)} @ ${ms(finite(m.at_ms) ?? 0)}${m.detail ? ` (${text(m.detail)})` : ""}`);
      const bad = (ok: unknown) => (ok ? "good" : "bad");
      return [
        esc(`ad ${(finite(r.ad_index) ?? 0) + 1}`), esc(r.url),
        `<span class="tag ${bad(r.session_created)}">${esc(session)}</span>`,
        `<span class="tag ${bad(r.init_resolved)}">${esc(init)}</span>`,
        `<span class="tag ${bad(r.start_resolved)}">${esc(start)}</span>`,
        esc(errors.join("; ")), esc(messages.join("; ")),
      ];
    }),
  );
}
