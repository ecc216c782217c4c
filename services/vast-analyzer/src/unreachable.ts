import { OutboundError } from "@cva/platform";

// A VAST URL that gives no answer at all is not a VAST document to report on: the client sent a URL nobody serves
// (a typo, a dead ad server, a host behind a VPN). The platform's outbound errors carry a code and a client-safe
// message naming the host that failed (after HTTP redirects, the redirect target); this module words them the way
// the answer to the client reads: what failed, where, and why.

/** Outbound failures that mean "no answer came": DNS, refused/reset connections, TLS, time-outs. */
export function isUnreachable(e: unknown): e is OutboundError {
  return e instanceof OutboundError && (e.code === "dns" || e.code === "connect_timeout" || e.code === "connection" || e.code === "timeout");
}

const DNS_CODES: Record<string, string> = {
  ENOTFOUND: "no such host",
  ENODATA: "the name has no address",
  NXDOMAIN: "no such host",
  ESERVFAIL: "the name server failed",
  EREFUSED: "the name server refused the query",
  ETIMEOUT: "the name server did not answer in time",
  EAI_AGAIN: "the name server did not answer in time",
  ECONNREFUSED: "the name server refused the connection",
};

const CONNECT_CODES: Record<string, string> = {
  ECONNREFUSED: "refused",
  ECONNRESET: "reset",
  EHOSTUNREACH: "failed: host unreachable",
  ENETUNREACH: "failed: network unreachable",
  EPIPE: "closed",
};

const seconds = (ms: string) => {
  const s = Number(ms) / 1000;
  return `${Number.isInteger(s) ? s : s.toFixed(1)} s`;
};

/**
 * OpenSSL's errors read "80:error:0A00010B:SSL routines:ssl3_get_record:wrong version number:../deps/openssl/…:350:":
 * only the reason is the client's business (no library file paths in a client message). Node's certificate errors
 * ("certificate has expired", "self-signed certificate") are kept as they are.
 */
export function tlsReason(raw: string): string {
  const openssl = raw.match(/:error:[0-9A-Fa-f]+:[^:]*:[^:]*:([^:]+)/);
  const reason = (openssl ? openssl[1]! : raw).trim().split("\n")[0]!;
  return reason.replace(/(\.\.\/|\/)[^\s:]+/g, "").slice(0, 200) || "the handshake failed";
}

/**
 * "DNS lookup of ads.example failed: no such host (ENOTFOUND)", "connection to ads.example:443 timed out after 5 s",
 * "connection to ads.example:80 refused", "TLS handshake with ads.example:443 failed: certificate has expired",
 * "ads.example did not answer within 10 s". Anything unrecognised keeps the platform's own (client-safe) message.
 */
export function describeUnreachable(e: OutboundError): string {
  const m = e.message;
  let r: RegExpMatchArray | null;
  switch (e.code) {
    case "dns":
      if ((r = m.match(/^could not resolve host (.+) \(([^)]*)\)$/))) {
        const why = DNS_CODES[r[2]!];
        return `DNS lookup of ${r[1]} failed: ${why ? `${why} (${r[2]})` : r[2]}`;
      }
      break;
    case "connect_timeout":
      if ((r = m.match(/^connecting to (.+) timed out after (\d+) ms$/))) return `connection to ${r[1]} timed out after ${seconds(r[2]!)}`;
      break;
    case "timeout":
      if ((r = m.match(/^request to (.+) timed out after (\d+) ms$/))) return `${r[1]} did not answer within ${seconds(r[2]!)}`;
      if ((r = m.match(/^request to (.+) timed out$/))) return `${r[1]} stopped answering (time-out)`;
      break;
    case "connection":
      if ((r = m.match(/^TLS handshake with (.+?) failed: (.+)$/s))) return `TLS handshake with ${r[1]} failed: ${tlsReason(r[2]!)}`;
      if ((r = m.match(/^could not connect to (.+) \(([^)]*)\)$/))) {
        const what = CONNECT_CODES[r[2]!];
        return what ? `connection to ${r[1]} ${what} (${r[2]})` : `connection to ${r[1]} failed (${r[2]})`;
      }
      break;
  }
  return m;
}
