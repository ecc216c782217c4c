import { Code, ConnectError } from "@connectrpc/connect";

// The five documented error types (CONTRACT §5). Every error a client sees is one of these, with a specific message
// that never carries stack traces, internal addresses or file paths.
export type ErrorType = "authentication_error" | "invalid_endpoint" | "payload_error" | "quota_error" | "processing_error";

export const HTTP_STATUS: Record<ErrorType, number> = {
  authentication_error: 401,
  invalid_endpoint: 404,
  payload_error: 400,
  quota_error: 429,
  processing_error: 400,
};

// Seconds a client should wait after "no worker resources" / an unfinished scan before retrying.
export const DEFAULT_RETRY_AFTER_S = 5;

export class ApiError extends Error {
  readonly type: ErrorType;
  readonly retryAfterSeconds: number | undefined;
  constructor(type: ErrorType, message: string, opts: { retryAfterSeconds?: number } = {}) {
    // An answer to the client, not a fault: no stack to capture (it is never shown or logged), which matters at
    // the rate unauthenticated requests can arrive.
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
    this.name = "ApiError";
    this.type = type;
    this.retryAfterSeconds = opts.retryAfterSeconds ?? (type === "processing_error" ? DEFAULT_RETRY_AFTER_S : undefined);
  }
  get status(): number {
    return HTTP_STATUS[this.type];
  }
  body(): { error_type: ErrorType; message: string } {
    return { error_type: this.type, message: this.message };
  }
}

export const payloadError = (message: string) => new ApiError("payload_error", message);
export const authError = (message: string) => new ApiError("authentication_error", message);
export const notFound = (message = "no such endpoint") => new ApiError("invalid_endpoint", message);
export const quotaError = (message = "monthly scan quota used up") => new ApiError("quota_error", message);
export const processingError = (message: string, retryAfterSeconds?: number) =>
  new ApiError("processing_error", message, retryAfterSeconds === undefined ? {} : { retryAfterSeconds });

// The public gRPC service maps the same errors onto Connect codes (scan.proto).
const CONNECT_CODE: Record<ErrorType, Code> = {
  authentication_error: Code.Unauthenticated,
  invalid_endpoint: Code.NotFound,
  payload_error: Code.InvalidArgument,
  quota_error: Code.ResourceExhausted,
  processing_error: Code.Unavailable,
};

/** `cause`: what was caught (the ApiError itself, or the internal error it stands for) — kept for logs, never sent. */
export function toConnectError(err: ApiError, cause: unknown = err): ConnectError {
  return new ConnectError(err.message, CONNECT_CODE[err.type], undefined, undefined, cause);
}

// Anything unexpected becomes a processing_error with a fixed message: internal details stay in the log.
export function asApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  return processingError("the scan could not be completed; retry later");
}

/** Whether a ConnectError from an internal call means the dependency is unreachable / too slow. */
export function isConnectCode(err: unknown, code: Code): boolean {
  return err instanceof ConnectError && err.code === code;
}
