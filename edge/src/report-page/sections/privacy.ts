import { num } from "../format.ts";
import { bulletList, esc, flag, list, obj, objs, table, text, type J } from "../html.ts";

// What the creative does with and without consent (the report's `privacy`, v3): one row per consent state, then the
// findings a privacy officer reads first — what it did after the user said no, the consent macros, the domains
// outside the customer's list.

const STATE_LABEL: Record<string, string> = {
  no_cmp: "No CMP (the scan itself)",
  tcf_denied: "TCF v2.2: nothing consented",
  tcf_granted: "TCF v2.2: everything consented",
  gpp_us_opt_out: "GPP US national: opted out, GPC",
};

export function renderPrivacy(report: J): string {
  const p = obj(report.privacy);
  const states = objs(p.states);
  if (states.length === 0) return "";
  const names = (xs: unknown) => list(xs).map(text);
  const stateTable = table(
    [{ head: "State" }, { head: "Cookies", kind: "url" }, { head: "Storage keys", kind: "url" }, { head: "Third-party domains", kind: "url" }, { head: "Requests", kind: "num" }, { head: "Pixels", kind: "num" }],
    states.map((s) => [
      `${esc(STATE_LABEL[text(s.state)] ?? text(s.state))}${s.error ? `<br><small>${esc(text(s.error))}</small>` : ""}`
        // A derived state was not rendered: say so where its figures are read.
        + (s.derived_from ? `<br><small>derived from ${esc(text(s.derived_from))}: ${esc(text(s.derived_reason))}</small>` : ""),
      esc(objs(s.cookies).map((c) => `${text(c.name)} (${text(c.domain)})`).join(", ") || "none"),
      esc(names(s.storage_keys).join(", ") || "none"),
      esc(names(s.third_party_domains).join(", ") || "none"),
      esc(num(Number(s.requests) || 0)),
      esc(num(Number(s.pixels) || 0)),
    ]),
    { caption: "What the creative did under each consent state" },
  );
  const violations = objs(p.violations);
  const refusals = violations.length === 0
    ? "<p>Nothing set and no tracking request after the user refused.</p>"
    : table(
      [{ head: "State" }, { head: "Kind" }, { head: "What", kind: "url" }, { head: "Domain", kind: "url" }],
      violations.map((v) => [esc(text(v.state)), esc(text(v.kind)), `<code>${esc(text(v.what))}</code>`, esc(text(v.domain))]),
      { caption: "After the user refused (tcf_denied, gpp_us_opt_out)", max: 100 },
    );
  const macros = objs(p.consent_macros);
  const macroTable = table(
    [{ head: "Macro" }, { head: "Host", kind: "url" }, { head: "Found in" }, { head: "Filled" }, { head: "Vendor matches" }],
    macros.map((m) => [`<code>${esc(text(m.macro))}</code>`, esc(text(m.host)), esc(text(m.found_in)), flag(m.filled, true), flag(m.vendor_matches, true)]),
    { caption: "Consent macros", max: 100 },
  );
  const calls = objs(p.consent_calls).map((c) => `${text(c.state)}: ${text(c.api)}("${text(c.command)}") × ${text(c.count)}${c.via_post_message ? " by postMessage" : ""}`);
  const allowed = names(p.allowed_domains);
  const unapproved = names(p.unapproved_domains);
  return [
    `<p>Reads the consent signal: ${flag(p.reads_consent)}${names(p.consent_signals).length ? ` (looked for: <code>${esc(names(p.consent_signals).join(", "))}</code>)` : ""}</p>`,
    stateTable,
    refusals,
    macroTable,
    calls.length ? `<h3>Consent API calls</h3>${bulletList(calls, { max: 50 })}` : "",
    allowed.length ? `<h3>Outside allowed_domains (${esc(allowed.join(", "))})</h3>${unapproved.length ? bulletList(unapproved, { max: 200, code: true }) : "<p>None.</p>"}` : "",
  ].join("");
}
