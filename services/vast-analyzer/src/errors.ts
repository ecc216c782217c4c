import { OutboundError } from "@cva/platform";
import { describeUnreachable, isUnreachable } from "./unreachable.ts";

/**
 * The VAST URL itself cannot be scanned: it is refused under the outbound policy (bad URL, bad scheme, private or
 * metadata address — directly or through an HTTP redirect), or nothing answers it (DNS, refused, time-out, TLS).
 * The job answers payload_error (not charged); `message` is client-safe: it names the field, the host and the rule or
 * cause, never a resolved internal address.
 */
export class VastInputError extends Error {
  override readonly name = "VastInputError";
  constructor(message: string) {
    super(message);
  }
}

/** Outbound errors that mean "the client gave a URL we will not fetch", as opposed to "the server failed". */
export function isInputRefusal(e: unknown): e is OutboundError {
  return e instanceof OutboundError && (e.code === "bad_url" || e.code === "bad_scheme" || e.code === "blocked_address");
}

export function inputErrorFor(e: OutboundError): VastInputError {
  // safeFetch checks every redirect hop too; the detail then names the host the redirect led to.
  const via = "";
  switch (e.code) {
    case "bad_url":
      return new VastInputError(`data: the VAST URL${via} is not a valid absolute http(s) URL`);
    case "bad_scheme":
      return new VastInputError(`data: the VAST URL${via} must use http or https`);
    default: {
      const detail = e.message.replace(/^refused by the outbound policy:\s*/, "");
      return new VastInputError(`data: the VAST URL${via} is refused by the outbound policy: ${detail}`);
    }
  }
}

/** The VAST URL answered nothing (DNS, connection, TLS, time-out): the message says where and why. */
export function unreachableErrorFor(e: OutboundError): VastInputError {
  return new VastInputError(`data: the VAST URL could not be loaded: ${describeUnreachable(e)}`);
}

/** A short, client-safe description of a failed outbound request. */
export function describeFetchError(e: unknown): string {
  if (isUnreachable(e)) return describeUnreachable(e);
  if (e instanceof OutboundError) return e.message;
  return "the request failed";
}
