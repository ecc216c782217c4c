import { create } from "@bufbuild/protobuf";
import { VastTrackerCheckSchema, type VastTrackerCheck } from "@cva/contracts";
import { OutboundError, safeConnect, type OutboundPolicy } from "@cva/platform";
import type { ChainStep } from "./chain.ts";
import { nonProductionHost } from "./lint/hosts.ts";
import { IAB_MACROS } from "./lint/iab-macros.ts";
import { urlKind } from "./lint/urls.ts";
import { DEADLINE_REACHED, type ScanBudget } from "./scan-budget.ts";
import { tlsReason } from "./unreachable.ts";
import { unexpandedMacrosIn } from "./unexpanded-macros.ts";
import { resolveVastUrl } from "./urls.ts";
import type { XmlNode } from "./xml-tree.ts";

// Every tracking, click, error and verification URL of the chain's documents, checked without side effects: what its
// name says (a test or staging host), mixed content (http on an https ad), its macros, and — when the analyzer is
// configured for it — whether the host resolves to a public address and answers a TCP connection, and for https a
// valid TLS handshake. The connection is closed before a single HTTP byte is written: no tracker fires. Impressions
// are left out (they are fired, pixels.ts), media and resources too (they are probed and loaded).

export interface TrackerCheckOptions {
  /** Check hosts over the network (DNS, TCP, TLS). Off by default: a library caller (and every test) opts in. */
  network: boolean;
  /** Distinct hosts (scheme, name, port) connected to at most per scan; URLs on more hosts are not network-checked. */
  maxHosts: number;
  /** Tracker URLs reported at most per scan. */
  maxUrls: number;
  /** Connect + handshake time-out of one host, ms (capped by the scan's deadline). */
  connectTimeoutMs: number;
  /** Hosts checked at the same time. */
  concurrency: number;
}

export const DEFAULT_TRACKER_CHECKS: TrackerCheckOptions = { network: false, maxHosts: 30, maxUrls: 200, connectTimeoutMs: 3_000, concurrency: 4 };

interface Deps {
  policy: OutboundPolicy;
  budget: ScanBudget;
  rewriteUrl: (url: string) => string;
  options: TrackerCheckOptions;
  signal?: AbortSignal;
}

const OPAQUE = new Set(["extension", "creativeextension"]);
/** What is fired, fetched or probed elsewhere, so not a tracker here. */
const NOT_TRACKERS = new Set(["impression", "vastadtaguri", "mediafile", "mezzanine", "interactivecreativefile", "closedcaptionfile", "staticresource", "iframeresource"]);

function* trackerNodes(node: XmlNode): Generator<XmlNode> {
  for (const c of node.children) {
    const name = c.name.toLowerCase();
    if (urlKind(c) && !NOT_TRACKERS.has(name)) yield c;
    if (!OPAQUE.has(name)) yield* trackerNodes(c);
  }
}

/** Macro problems of a URL as written: what no player fills, macros players do not see as macros, stray brackets. */
export function macroProblems(url: string): string[] {
  const out = unexpandedMacrosIn(url).map((m) => `${m} is not filled by players`);
  for (const m of url.matchAll(/%5B([A-Za-z][A-Za-z0-9_]{0,63})%5D/gi)) {
    if (IAB_MACROS.has(m[1]!.toUpperCase())) out.push(`${m[0]} is percent-encoded: players fill [${m[1]!.toUpperCase()}] only unencoded`);
  }
  const rest = url.replace(/^\s*https?:\/\/\[[0-9a-f:.]+\]/i, "").replace(/\[[A-Za-z][A-Za-z0-9_]{0,63}\]/g, "");
  if (/[[\]]/.test(rest)) out.push("a '[' or ']' that is not part of a [MACRO]");
  return out;
}

type NetResult = { resolves: boolean; tlsValid: boolean; checked: boolean; error: string };

async function checkEndpoint(target: URL, deps: Deps): Promise<NetResult> {
  const time = deps.budget.time(deps.options.connectTimeoutMs);
  if (time.ms <= 0) return { resolves: false, tlsValid: false, checked: false, error: `not checked: ${DEADLINE_REACHED}` };
  const https = target.protocol === "https:";
  const port = Number(target.port) || (https ? 443 : 80);
  try {
    const { socket } = await safeConnect(target.hostname, port, { policy: deps.policy, connectTimeoutMs: time.ms, tls: https, signal: deps.signal });
    // Connected (and, for https, the handshake verified): closed before any request is written.
    socket.destroy();
    return { resolves: true, tlsValid: https, checked: true, error: "" };
  } catch (e) {
    if (deps.signal?.aborted) throw e;
    if (!(e instanceof OutboundError)) return { resolves: false, tlsValid: false, checked: false, error: `not checked: ${e instanceof Error ? e.message : String(e)}` };
    const handshake = (e as { handshake?: boolean }).handshake === true;
    switch (e.code) {
      case "dns":
        return { resolves: false, tlsValid: false, checked: true, error: e.message };
      case "blocked_address":
        return { resolves: false, tlsValid: false, checked: true, error: e.message };
      case "connection":
        return handshake
          ? { resolves: true, tlsValid: false, checked: true, error: `TLS handshake failed: ${tlsReason(e.message.replace(/^.*failed: /, ""))}` }
          : { resolves: true, tlsValid: false, checked: true, error: e.message };
      default:
        // A time-out cannot tell a silent name server from a silent host: not measured, and said so.
        return { resolves: false, tlsValid: false, checked: false, error: `not checked: ${e.message}` };
    }
  }
}

/** Runs `work` over `items` with at most `n` at a time. */
async function pool<T>(items: readonly T[], n: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, async () => {
    while (next < items.length) await work(items[next++]!);
  }));
}

export async function checkTrackers(steps: readonly ChainStep[], vastUrl: string, deps: Deps): Promise<{ trackers: VastTrackerCheck[]; errors: string[] }> {
  const httpsAd = /^\s*https:/i.test(vastUrl);
  const errors: string[] = [];
  const found: Array<{ node: XmlNode; hop: number; base: string }> = [];
  steps.forEach((step, hop) => {
    if (step.doc) for (const node of trackerNodes(step.doc.root)) found.push({ node, hop, base: step.baseUrl });
  });
  if (found.length > deps.options.maxUrls) errors.push(`${found.length} tracker URLs; only the first ${deps.options.maxUrls} were checked`);

  const endpoints = new Map<string, { target: URL; result?: NetResult }>();
  const trackers = found.slice(0, deps.options.maxUrls).map(({ node, hop, base }) => {
    const raw = node.text.trim();
    const kind = urlKind(node)!;
    const resolved = resolveVastUrl(raw, base);
    const http = resolved && (resolved.protocol === "http:" || resolved.protocol === "https:") ? resolved : undefined;
    const host = http?.hostname ?? "";
    const check = create(VastTrackerCheckSchema, {
      url: raw,
      kind,
      hop,
      host,
      nonProduction: host ? (nonProductionHost(host) ?? "") : "",
      insecureOnHttps: httpsAd && http?.protocol === "http:",
      macroProblems: macroProblems(raw),
      error: raw === "" ? "empty: no URL" : http ? "" : "not an http(s) URL",
    });
    if (deps.options.network && http) {
      if (/%5B|%25|[[\]]/i.test(host) || /\[[A-Za-z_]+\]/.test(raw.split("/")[2] ?? "")) check.error = "not checked: the host holds a macro";
      else {
        const key = `${http.protocol}//${host}:${http.port}`;
        if (!endpoints.has(key)) {
          if (endpoints.size >= deps.options.maxHosts) check.error = `not checked: more than ${deps.options.maxHosts} tracker hosts in the scan`;
          else endpoints.set(key, { target: new URL(deps.rewriteUrl(`${http.protocol}//${http.host}/`)) });
        }
      }
    }
    return { check, key: http ? `${http.protocol}//${host}:${http.port}` : "" };
  });

  if (deps.options.network && endpoints.size > 0) {
    await pool([...endpoints.values()], deps.options.concurrency, async (ep) => {
      ep.result = await checkEndpoint(ep.target, deps);
    });
    for (const { check, key } of trackers) {
      const r = endpoints.get(key)?.result;
      if (!r || check.error !== "") continue;
      check.networkChecked = r.checked;
      check.resolves = r.resolves;
      check.tlsValid = r.tlsValid;
      check.error = r.error;
    }
  }
  return { trackers: trackers.map((t) => t.check), errors };
}
