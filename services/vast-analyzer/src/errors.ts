import { OutboundError } from "@cva/platform";

/**
 * The VAST URL itself cannot be fetched under the outbound policy (bad URL, bad scheme, private or metadata
 * address — directly or through an HTTP redirect). main.ts turns it into a payload_error; `message` is client-safe:
 * it names the field and the rule, never a resolved internal address.
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

/** A short, client-safe description of a failed outbound request. */
export function describeFetchError(e: unknown): string {
  if (e instanceof OutboundError) return e.message;
  return "the request failed";
}
