/** The slice of a pino logger this service uses; pino's Logger satisfies it. */
export interface Logger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  debug(obj: object, msg?: string): void;
}

export const silentLogger: Logger = { info() {}, warn() {}, debug() {} };
