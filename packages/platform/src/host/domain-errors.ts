import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import type { Logger } from "pino";

/**
 * What a service's own code may refuse, in its own words and without knowing about RPC: stores and CLIs throw these
 * (the keys CLI prints their message), and the service host maps them onto Connect codes. `message` is for the
 * caller: no internal addresses, paths or stack traces.
 */
export type DomainErrorKind = "invalid_argument" | "not_found" | "already_exists";

export class DomainError extends Error {
  constructor(
    readonly kind: DomainErrorKind,
    message: string,
  ) {
    super(message);
    this.name = "DomainError";
  }
}

export const invalidArgument = (message: string) => new DomainError("invalid_argument", message);
export const notFound = (message: string) => new DomainError("not_found", message);
export const alreadyExists = (message: string) => new DomainError("already_exists", message);

const CODE_OF: Record<DomainErrorKind, Code> = {
  invalid_argument: Code.InvalidArgument,
  not_found: Code.NotFound,
  already_exists: Code.AlreadyExists,
};

/**
 * The last step before every RPC handler of a service host: a ConnectError passes as it is; a DomainError becomes its
 * code with its message; anything else (NATS down, contention, a bug) is logged here, once, and reaches the caller
 * only as an opaque UNAVAILABLE with `unavailableMessage` — without it Connect would send the error's own message
 * (CODE_UNKNOWN). Either way the ConnectError keeps what was caught as its cause, for the logs of this process.
 */
export function domainErrorInterceptor(opts: { logger: Logger; unavailableMessage: string }): Interceptor {
  return (next) => async (req) => {
    try {
      return await next(req);
    } catch (err) {
      if (err instanceof ConnectError) throw err;
      if (err instanceof DomainError) throw new ConnectError(err.message, CODE_OF[err.kind], undefined, undefined, err);
      opts.logger.error({ err, procedure: `${req.service.typeName}/${req.method.name}` }, "rpc failed");
      throw new ConnectError(opts.unavailableMessage, Code.Unavailable, undefined, undefined, err);
    }
  };
}
