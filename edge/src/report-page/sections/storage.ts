import { byKey, bytes, num } from "../format.ts";
import { bulletList, esc, finite, flag, list, obj, objs, table, text, type J } from "../html.ts";

// What the creative left behind and said: cookies, local storage, dialogs, console output, failed assets.

/** Long values (a cookie value may be 4 096 characters) are cut for the page; the JSON report has them whole. */
const cut = (s: unknown, n = 160): string => {
  const t = text(s);
  return t.length > n ? `${t.slice(0, n)}…` : t;
};

export function renderCookies(report: J): string {
  const cookies = objs(report.cookies);
  if (cookies.length === 0) return "<p>No cookies.</p>";
  return table(
    [
      { head: "Name", kind: "url" }, { head: "Domain", kind: "url" }, { head: "Path", kind: "url" }, { head: "Expires", kind: "nowrap" },
      { head: "Secure" }, { head: "HttpOnly" }, { head: "SameSite" }, { head: "Size", kind: "num" }, { head: "Value", kind: "url" },
    ],
    cookies.map((c) => [
      esc(cut(c.name, 200)),
      esc(c.domain),
      esc(c.path),
      esc(c.session || c.expires === -1 ? "session" : byKey("expires", c.expires)),
      flag(c.secure),
      flag(c.httpOnly),
      esc(c.sameSite ?? "not set"),
      esc(bytes(finite(c.size) ?? 0)),
      `<code>${esc(cut(c.value))}</code>`,
    ]),
    { max: 300 },
  );
}

export function renderLocalStorage(report: J): string {
  const items = objs(report.local_storage);
  if (items.length === 0) return "<p>Nothing written to localStorage.</p>";
  return table(
    [{ head: "Key", kind: "url" }, { head: "Value", kind: "url" }],
    items.map((s) => [`<code>${esc(cut(s.key, 200))}</code>`, `<code>${esc(cut(s.value))}</code>`]),
    { max: 500 },
  );
}

export function renderDialogs(report: J): string {
  const dialogs = objs(report.dialogs);
  if (dialogs.length === 0) return "";
  return table([{ head: "Type" }, { head: "Message", kind: "url" }], dialogs.map((d) => [esc(d.type), esc(cut(d.message, 1000))]), { max: 50 });
}

export function renderConsole(report: J): string {
  const c = obj(report.console);
  const errors = list(c.errors).map(text);
  const warnings = list(c.warnings).map(text);
  if (errors.length === 0 && warnings.length === 0) return "";
  return [
    errors.length ? `<h3>${esc(num(errors.length))} ${errors.length === 1 ? "error" : "errors"}</h3>${bulletList(errors, { max: 200, code: true })}` : "",
    warnings.length ? `<h3>${esc(num(warnings.length))} ${warnings.length === 1 ? "warning" : "warnings"}</h3>${bulletList(warnings, { max: 200, code: true })}` : "",
  ].join("");
}

export function renderMissingAssets(report: J): string {
  const assets = objs(report.missing_assets);
  if (assets.length === 0) return "";
  return table(
    [{ head: "URL", kind: "url" }, { head: "Status", kind: "num" }, { head: "Type" }, { head: "Why" }],
    assets.map((a) => [esc(a.url), esc(a.status === 0 ? "no answer" : a.status), esc(a.resource_type), esc(a.reason)]),
    { max: 200 },
  );
}

export function insecureUrls(report: J): string[] {
  const ssl = obj(report.ssl);
  return list(ssl.insecure_urls ?? ssl.non_secure_urls).map(text);
}
