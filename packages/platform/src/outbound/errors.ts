export type OutboundErrorCode =
  | "bad_url"
  | "bad_scheme"
  | "blocked_address"
  | "dns"
  | "connect_timeout"
  | "timeout"
  | "too_large"
  | "too_many_redirects"
  | "connection";

/** Prefix of every blocked_address message; the rest is the policy's reason. */
export const REFUSED_PREFIX = "refused by the outbound policy: ";

/** Messages are meant for the client: they name only what the client gave (URL, host), never resolved internals. */
export class OutboundError extends Error {
  readonly code: OutboundErrorCode;

  constructor(code: OutboundErrorCode, message: string) {
    super(message);
    this.name = "OutboundError";
    this.code = code;
  }
}
