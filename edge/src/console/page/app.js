// @ts-check
// The web console (GET /): a form over the public JSON API, nothing else — the same POST /v3/scan* a client would
// send (with `targeting` for a tag or zip when chosen: our extension to the spec's v3), with the API key from this
// tab's sessionStorage. Served as is from our origin under a CSP without inline script or style; the DOM is built
// with textContent only, never from HTML strings, so nothing the API answers (an error message, a report) can run
// here.
//
// The pure parts (detectKind, planScan) are exported for the tests; the page wires itself up only in a browser.

import { detectKind, ENDPOINTS, HEAD_BYTES } from "@cva/creative-kind";

// Kind detection is the CLI's own module (packages/creative-kind): in Node it resolves as a workspace package; in
// the browser the edge points this import at the same file, served under its content hash (console/site.ts).
export { detectKind, ENDPOINTS, HEAD_BYTES };

/** @typedef {import("@cva/creative-kind").Kind} Kind */

/** @type {Record<Kind, string>} */
const KIND_LABEL = { tag: "ad tag", zip: "HTML5 zip", vast: "VAST tag", video: "video file", image: "image file", audio: "audio file" };

/** @type {Record<Kind, string>} */
const WHILE_SCANNING = {
  tag: "Rendering the tag in Chromium and measuring it…",
  zip: "Unpacking the zip, then rendering its index.html…",
  vast: "Fetching the VAST document and probing its media files…",
  video: "Probing the video: streams, loudness, black and silent ends…",
  image: "Measuring the image…",
  audio: "Probing the audio: loudness, silence, clipping…",
};

// ---- which endpoint, with which fields ----------------------------------------------------------------------------

/**
 * @typedef {{ device: string, language: string, country: string }} Targeting
 * @typedef {{ path: string, targeting: Record<string, string> | undefined }} Plan
 */

/** The targeting keys each kind takes (as the API: a zip has no country); the other kinds take none. */
const TARGETING_KEYS = /** @type {Partial<Record<Kind, Array<keyof Targeting>>>} */ ({ tag: ["device", "language", "country"], zip: ["device", "language"] });

/**
 * The request for a kind and the targeting chosen: always the kind's v3 endpoint, so every scan gets its tests and
 * report page; a tag or zip carries the chosen targeting (our extension to the spec's v3, validated as v2's).
 * @param {Kind} kind
 * @param {Targeting} t
 * @returns {Plan}
 */
export function planScan(kind, t) {
  /** @type {Record<string, string>} */
  const targeting = {};
  for (const k of TARGETING_KEYS[kind] ?? []) if (t[k]) targeting[k] = t[k];
  return { path: ENDPOINTS[kind], targeting: Object.keys(targeting).length > 0 ? targeting : undefined };
}

/** Base64 of bytes, in chunks (String.fromCharCode on a whole file would overflow the argument list). */
export function base64Of(/** @type {Uint8Array} */ bytes) {
  let bin = "";
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin);
}

/**
 * A fresh Idempotency-Key: 128 random bits. crypto.randomUUID exists only in secure contexts, and an edge may be
 * reached over plain http on a private address; getRandomValues works everywhere.
 */
export function newIdempotencyKey() {
  const b = crypto.getRandomValues(new Uint8Array(16));
  return `cva-console-${Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("")}`;
}

/** "1.2 MB" (decimal units, as the reports use). */
export function formatBytes(/** @type {number} */ n) {
  if (n < 1000) return `${n} B`;
  if (n < 1e6) return `${(n / 1e3).toFixed(n < 1e4 ? 1 : 0)} KB`;
  if (n < 1e9) return `${(n / 1e6).toFixed(n < 1e7 ? 1 : 0)} MB`;
  return `${(n / 1e9).toFixed(1)} GB`;
}

// ---- the page -----------------------------------------------------------------------------------------------------

const KEY_STORAGE = "cva.console.apiKey";
const HISTORY_STORAGE = "cva.console.history";
const HISTORY_MAX = 20;

/** @param {string} id */
function el(id) {
  const e = document.getElementById(id);
  if (!e) throw new Error(`console: #${id} is missing`);
  return e;
}
const input = (/** @type {string} */ id) => /** @type {HTMLInputElement} */ (el(id));
const select = (/** @type {string} */ id) => /** @type {HTMLSelectElement} */ (el(id));

/** sessionStorage, or nothing where the browser refuses it (storage disabled): the console still works, unremembered. */
const session = {
  get(/** @type {string} */ k) {
    try {
      return sessionStorage.getItem(k);
    } catch {
      return null;
    }
  },
  set(/** @type {string} */ k, /** @type {string} */ v) {
    try {
      if (v) sessionStorage.setItem(k, v);
      else sessionStorage.removeItem(k);
    } catch {
      /* not remembered */
    }
  },
};

/**
 * @typedef {{ at: number, what: string, endpoint: string, jobId: string, reportUrl: string, passed?: number, failed?: number }} HistoryItem
 */

/** @returns {HistoryItem[]} */
function readHistory() {
  try {
    const v = JSON.parse(session.get(HISTORY_STORAGE) ?? "[]");
    return Array.isArray(v) ? v.filter((h) => h && typeof h === "object") : [];
  } catch {
    return [];
  }
}

function init() {
  const form = /** @type {HTMLFormElement} */ (el("scan-form"));
  const limits = {
    body: Number(form.dataset.maxBodyBytes) || 15 * 1024 * 1024,
    tag: Number(form.dataset.maxTagBytes) || 1024 * 1024,
    zip: Number(form.dataset.maxZipBytes) || 10 * 1024 * 1024,
  };
  const keyInput = input("api-key");
  const tagInput = /** @type {HTMLTextAreaElement} */ (el("tag"));
  const fileInput = input("file");
  const fileAs = select("file-as");
  const vastInput = input("vast-url");
  const targetingSet = /** @type {HTMLFieldSetElement} */ (el("targeting"));
  const country = select("country");

  /** @type {{ file: File | undefined, fileKind: Kind | undefined, xhr: XMLHttpRequest | undefined, timer: number | undefined, last: (() => void) | undefined }} */
  const state = { file: undefined, fileKind: undefined, xhr: undefined, timer: undefined, last: undefined };

  // --- the key: this tab only ---
  keyInput.value = session.get(KEY_STORAGE) ?? "";
  keyInput.addEventListener("input", () => {
    session.set(KEY_STORAGE, keyInput.value.trim());
    clearFieldError(keyInput);
  });
  input("show-key").addEventListener("change", (e) => {
    keyInput.type = /** @type {HTMLInputElement} */ (e.target).checked ? "text" : "password";
  });
  el("forget-key").addEventListener("click", () => {
    keyInput.value = "";
    session.set(KEY_STORAGE, "");
    keyInput.focus();
  });

  // --- what to scan ---
  const source = () => /** @type {"tag" | "file" | "vast"} */ ((/** @type {HTMLInputElement | null} */ (form.querySelector('input[name="source"]:checked')))?.value ?? "tag");
  const kindNow = () => (source() === "tag" ? "tag" : source() === "vast" ? "vast" : state.fileKind);
  const targeting = () => ({ device: select("device").value, language: input("language").value.trim(), country: country.value });

  function refresh() {
    for (const s of ["tag", "file", "vast"]) el(`panel-${s}`).hidden = source() !== s;
    const kind = kindNow();
    const targetable = kind === "tag" || kind === "zip" || kind === undefined;
    targetingSet.disabled = !targetable;
    country.disabled = kind === "zip";
    const endpoint = el("endpoint");
    if (!kind) {
      endpoint.textContent = source() === "file" ? "Choose a file to scan." : "";
      return;
    }
    const plan = planScan(kind, targeting());
    endpoint.textContent = `Sends POST ${plan.path}${plan.targeting ? ` (${Object.entries(plan.targeting).map(([k, v]) => `${k} ${v}`).join(", ")})` : ""}.`;
  }
  form.addEventListener("change", refresh);
  input("language").addEventListener("input", refresh);

  async function takeFile(/** @type {File | undefined} */ file) {
    state.file = file;
    state.fileKind = undefined;
    clearFieldError(fileInput);
    const shown = el("file-kind");
    el("file-as-field").hidden = true;
    if (!file) {
      shown.textContent = "";
      refresh();
      return;
    }
    const head = new Uint8Array(await file.slice(0, HEAD_BYTES).arrayBuffer());
    const d = detectKind(file.name, head, 'choose "VAST URL"');
    if (d.kind) {
      state.fileKind = d.kind;
      fileAs.value = d.kind;
      shown.textContent = `${file.name} (${formatBytes(file.size)}): ${KIND_LABEL[d.kind]}, because ${d.why}.`;
    } else {
      state.fileKind = undefined;
      shown.textContent = `${file.name} (${formatBytes(file.size)}): ${d.why}. Say what it is below.`;
    }
    el("file-as-field").hidden = false;
    refresh();
  }
  fileInput.addEventListener("change", () => void takeFile(fileInput.files?.[0]));
  fileAs.addEventListener("change", () => {
    state.fileKind = /** @type {Kind} */ (fileAs.value);
    refresh();
  });

  // Dropping a file anywhere on the page takes it (and keeps the browser from opening the file in place of the page);
  // dragged text is left alone, so it can still be dropped into the tag field.
  const zone = el("drop-zone");
  const carriesFiles = (/** @type {DragEvent} */ e) => Array.from(e.dataTransfer?.types ?? []).includes("Files");
  document.addEventListener("dragover", (e) => {
    if (!carriesFiles(e)) return;
    e.preventDefault();
    zone.classList.add("dragging");
  });
  document.addEventListener("dragleave", (e) => {
    if (!e.relatedTarget) zone.classList.remove("dragging");
  });
  document.addEventListener("drop", (e) => {
    if (!carriesFiles(e)) return;
    e.preventDefault();
    zone.classList.remove("dragging");
    const files = e.dataTransfer?.files;
    if (!files || files.length === 0) return;
    /** @type {HTMLInputElement} */ (form.querySelector('input[name="source"][value="file"]')).checked = true;
    fileInput.files = files;
    void takeFile(files[0]);
  });

  // --- submit ---
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    void submit(newIdempotencyKey());
  });

  async function submit(/** @type {string} */ idempotencyKey) {
    hide("error");
    hide("result");
    const built = await buildRequest();
    if (!built) return;
    state.last = () => void send(built, idempotencyKey);
    send(built, idempotencyKey);
  }

  /**
   * Checks the form and builds the request; on a problem, marks the field, focuses it and returns nothing.
   * @returns {Promise<{ kind: Kind, plan: Plan, body: string | FormData, size: number, what: string } | undefined>}
   */
  async function buildRequest() {
    for (const f of [keyInput, tagInput, fileInput, vastInput, input("workspace"), input("language")]) clearFieldError(f);
    const key = keyInput.value.trim();
    if (!key) return fieldError(keyInput, "Enter your API key.");
    const kind = kindNow();
    const workspace = input("workspace").value.trim();
    if (workspace && !/^\d{1,15}$/.test(workspace)) return fieldError(input("workspace"), "A workspace id is a whole number (0 or more).");
    const plan = planScan(kind ?? "tag", targeting());
    const name = input("name").value;
    /** @type {Record<string, unknown>} */
    const fields = {
      spec_id: Number(select("spec-set").value) || 0,
      ...(name ? { name } : {}),
      ...(workspace ? { workspace_id: Number(workspace) } : {}),
      ...(plan.targeting ? { targeting: plan.targeting } : {}),
    };
    if (source() === "tag") {
      const bytes = new TextEncoder().encode(tagInput.value);
      if (tagInput.value.trim() === "") return fieldError(tagInput, "Paste the ad tag to scan.");
      if (bytes.length > limits.tag) return fieldError(tagInput, `The tag is ${formatBytes(bytes.length)}; the limit is ${formatBytes(limits.tag)}.`);
      return { kind: "tag", plan, body: JSON.stringify({ data: base64Of(bytes), ...fields }), size: bytes.length, what: name || "Ad tag" };
    }
    if (source() === "vast") {
      const url = vastInput.value.trim();
      let ok = false;
      try {
        ok = /^https?:$/.test(new URL(url).protocol);
      } catch {
        ok = false;
      }
      if (!ok) return fieldError(vastInput, "Enter the http:// or https:// URL of the VAST tag.");
      return { kind: "vast", plan, body: JSON.stringify({ data: base64Of(new TextEncoder().encode(url)), ...fields }), size: url.length, what: name || url };
    }
    const file = state.file;
    if (!file) return fieldError(fileInput, "Choose a file to scan, or drop one on the page.");
    if (!kind) return fieldError(fileAs, "Say what kind of creative the file is.");
    if (kind === "zip" && file.size > limits.zip) return fieldError(fileInput, `The zip is ${formatBytes(file.size)}; the limit is ${formatBytes(limits.zip)}.`);
    if (kind === "tag" && file.size > limits.tag) return fieldError(fileInput, `The tag is ${formatBytes(file.size)}; the limit is ${formatBytes(limits.tag)}.`);
    const what = name || file.name;
    if (!name) fields.name = file.name;
    // Base64 grows a file by a third; what would not fit the JSON body limit goes as multipart/form-data with a
    // `file` part (the media scans take both), so the browser streams it instead of holding it as a string.
    const jsonSize = Math.ceil(file.size / 3) * 4 + 64 * 1024;
    if ((kind === "video" || kind === "image" || kind === "audio") && jsonSize > limits.body) {
      const form = new FormData();
      for (const [k, v] of Object.entries(fields)) form.set(k, String(v));
      form.set("file", file, file.name);
      return { kind, plan, body: form, size: file.size, what };
    }
    const data = base64Of(new Uint8Array(await file.arrayBuffer()));
    return { kind, plan, body: JSON.stringify({ data, ...fields }), size: file.size, what };
  }

  /** @param {{ kind: Kind, plan: Plan, body: string | FormData, size: number, what: string }} req @param {string} idempotencyKey */
  function send(req, idempotencyKey) {
    hide("error");
    const started = Date.now();
    const bar = /** @type {HTMLProgressElement} */ (el("progress-bar"));
    const status = el("progress-status");
    const time = el("progress-time");
    el("progress-title").textContent = `Scanning the ${KIND_LABEL[req.kind]}…`;
    bar.removeAttribute("value");
    status.textContent = req.size > 1e6 ? `Uploading ${formatBytes(req.size)}…` : WHILE_SCANNING[req.kind];
    time.textContent = "";
    show("progress");
    el("progress-title").focus();
    setBusy(true);
    window.clearInterval(state.timer);
    state.timer = window.setInterval(() => {
      time.textContent = `${Math.round((Date.now() - started) / 1000)} s`;
    }, 1000);

    const xhr = new XMLHttpRequest();
    state.xhr = xhr;
    xhr.open("POST", req.plan.path);
    xhr.setRequestHeader("X-ApiKey", keyInput.value.trim());
    // The same key on "Try again": a scan that did run is answered from its stored report, not charged twice.
    xhr.setRequestHeader("Idempotency-Key", idempotencyKey);
    if (typeof req.body === "string") xhr.setRequestHeader("Content-Type", "application/json");
    xhr.upload.addEventListener("progress", (e) => {
      if (!e.lengthComputable || req.size <= 1e6) return;
      bar.max = e.total;
      bar.value = e.loaded;
      status.textContent = `Uploading: ${formatBytes(e.loaded)} of ${formatBytes(e.total)}`;
    });
    xhr.upload.addEventListener("load", () => {
      bar.removeAttribute("value");
      status.textContent = WHILE_SCANNING[req.kind];
    });
    const finish = () => {
      window.clearInterval(state.timer);
      state.xhr = undefined;
      setBusy(false);
    };
    xhr.addEventListener("load", () => {
      finish();
      onAnswer(req, xhr);
    });
    xhr.addEventListener("error", () => {
      finish();
      hide("progress");
      showError("network_error", "The server could not be reached, or the connection was lost.", "Check your connection and try again: a scan that did run is not charged twice.", true);
    });
    xhr.addEventListener("abort", () => {
      finish();
      hide("progress");
      showError("stopped", "Stopped waiting for this scan.", "The server may still finish it. Trying again is safe: a scan that did run is answered from its stored report and not charged twice.", true);
    });
    xhr.send(req.body);
  }

  /** @param {{ kind: Kind, plan: Plan, what: string }} req @param {XMLHttpRequest} xhr */
  function onAnswer(req, xhr) {
    /** @type {any} */
    let body;
    try {
      body = JSON.parse(xhr.responseText);
    } catch {
      body = undefined;
    }
    if (xhr.status === 200 && body && typeof body === "object") {
      const url = typeof body.scan_results?.report_url === "string" ? body.scan_results.report_url : "";
      addHistory({ at: Date.now(), what: req.what, endpoint: req.plan.path, jobId: String(body.job_id ?? ""), reportUrl: url, passed: body.scan_results?.passed, failed: body.scan_results?.failed });
      if (url && /^https?:\/\//.test(url)) {
        el("progress-status").textContent = "Done. Opening the report page…";
        window.location.assign(url);
        return;
      }
      hide("progress");
      showReportJson(req, body, xhr.responseText);
      return;
    }
    hide("progress");
    const type = typeof body?.error_type === "string" ? body.error_type : "http_error";
    const message = typeof body?.message === "string" ? body.message : `The server answered HTTP ${xhr.status}${xhr.statusText ? ` ${xhr.statusText}` : ""}.`;
    const retryAfter = Number(xhr.getResponseHeader("Retry-After"));
    /** @type {Record<string, string>} */
    const hints = {
      authentication_error: "Check the API key above: it is missing, mistyped or revoked.",
      invalid_endpoint: `This server does not answer POST ${req.plan.path}: it does not offer ${KIND_LABEL[req.kind]} scans.`,
      payload_error: "The request was refused as it is; the message says which field and why.",
      quota_error: "Your monthly scan quota is used up. Ask for a higher quota, or wait for next month.",
      processing_error: retryAfter > 0 ? `The workers are busy. Try again in ${retryAfter} s.` : "The scan could not be completed. It was not charged; try again later.",
    };
    showError(type, message, hints[type] ?? "", type === "processing_error" || type === "http_error");
    if (type === "authentication_error") keyInput.setAttribute("aria-invalid", "true");
  }

  /** @param {{ kind: Kind, plan: Plan, what: string }} req @param {any} report @param {string} raw */
  function showReportJson(req, report, raw) {
    el("result-title").textContent = `Report: ${req.what}`;
    const dims = report?.dimensions?.text ? `, ${report.dimensions.text}` : "";
    el("result-summary").textContent = `${KIND_LABEL[req.kind]} scanned with POST ${req.plan.path}${dims}. Job ${report.job_id ?? "?"}. This report has no report page: here is its JSON.`;
    el("result-json").textContent = JSON.stringify(report, null, 2);
    const link = /** @type {HTMLAnchorElement} */ (el("result-download"));
    if (link.href.startsWith("blob:")) URL.revokeObjectURL(link.href);
    link.href = URL.createObjectURL(new Blob([raw], { type: "application/json" }));
    link.download = `report-${report.job_id ?? "scan"}.json`;
    show("result");
    el("result-title").focus();
  }

  el("cancel").addEventListener("click", () => state.xhr?.abort());
  el("retry").addEventListener("click", () => state.last?.());

  /** @param {string} type @param {string} message @param {string} hint @param {boolean} retry */
  function showError(type, message, hint, retry) {
    el("error-type").textContent = type;
    el("error-message").textContent = message;
    el("error-hint").textContent = hint;
    el("retry").hidden = !retry || !state.last;
    show("error");
    el("error-title").focus();
  }

  function setBusy(/** @type {boolean} */ busy) {
    /** @type {HTMLButtonElement} */ (el("scan")).disabled = busy;
    form.setAttribute("aria-busy", String(busy));
  }

  // --- field errors: the message under the field, named by aria-describedby, the field focused ---
  /** @param {HTMLElement} field @param {string} message @returns {undefined} */
  function fieldError(field, message) {
    const id = `${field.id}-error`;
    let p = document.getElementById(id);
    if (!p) {
      p = document.createElement("p");
      p.id = id;
      p.className = "field-error";
      field.insertAdjacentElement("afterend", p);
    }
    p.textContent = message;
    field.setAttribute("aria-invalid", "true");
    const described = (field.getAttribute("aria-describedby") ?? "").split(" ").filter(Boolean);
    if (!described.includes(id)) field.setAttribute("aria-describedby", [id, ...described].join(" "));
    field.focus();
    return undefined;
  }
  /** @param {HTMLElement} field */
  function clearFieldError(field) {
    const id = `${field.id}-error`;
    document.getElementById(id)?.remove();
    field.removeAttribute("aria-invalid");
    const described = (field.getAttribute("aria-describedby") ?? "").split(" ").filter((x) => x && x !== id);
    if (described.length) field.setAttribute("aria-describedby", described.join(" "));
    else field.removeAttribute("aria-describedby");
  }

  // --- history: this tab's finished scans, with their report links ---
  /** @param {HistoryItem} item */
  function addHistory(item) {
    session.set(HISTORY_STORAGE, JSON.stringify([item, ...readHistory()].slice(0, HISTORY_MAX)));
    renderHistory();
  }
  function renderHistory() {
    const list = el("history-list");
    const items = readHistory();
    list.replaceChildren(
      ...items.map((h) => {
        const li = document.createElement("li");
        const what = document.createElement(h.reportUrl ? "a" : "span");
        what.textContent = String(h.what || "scan");
        if (h.reportUrl && /^https?:\/\//.test(h.reportUrl)) /** @type {HTMLAnchorElement} */ (what).href = h.reportUrl;
        const meta = document.createElement("span");
        meta.className = "meta";
        const verdict = typeof h.failed === "number" && typeof h.passed === "number" ? `${h.failed} failed, ${h.passed} passed` : "report as JSON";
        meta.textContent = ` ${verdict} · ${h.endpoint} · ${new Date(h.at).toLocaleTimeString()}`;
        li.append(what, meta);
        return li;
      }),
    );
    el("history-empty").hidden = items.length > 0;
    el("history-clear").hidden = items.length === 0;
  }
  el("history-clear").addEventListener("click", () => {
    session.set(HISTORY_STORAGE, "");
    renderHistory();
  });

  /** @param {string} id */
  function show(id) {
    el(id).hidden = false;
  }
  /** @param {string} id */
  function hide(id) {
    el(id).hidden = true;
  }

  // Back from a report page (the page may come from the back-forward cache as it was left): a fresh form state.
  window.addEventListener("pageshow", (e) => {
    if (!e.persisted) return;
    hide("progress");
    setBusy(false);
    renderHistory();
  });

  renderHistory();
  refresh();
}

if (typeof document !== "undefined" && document.getElementById("scan-form")) init();
