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

/** Messages are meant for the client: they name only what the client gave (URL, host), never resolved internals. */
export class OutboundError extends Error {
  readonly code: OutboundErrorCode;

  constructor(code: OutboundErrorCode, message: string) {
    super(message);
    this.name = "OutboundError";
    this.code = code;
  }
}
