/**
 * A zip the service refuses: hostile, malformed or not an HTML5 creative. `message` is client-safe (it names the
 * entry and the rule it broke, never a server path or stack) and ends up as a payload_error (CONTRACT §5).
 */
export class ZipError extends Error {
  override readonly name = "ZipError";
  constructor(message: string) {
    super(message);
  }
}

/** Quotes an entry name for a message: JSON escaping keeps control characters and quotes visible but harmless. */
export function quoteName(name: string): string {
  const shown = name.length > 200 ? `${name.slice(0, 200)}…` : name;
  return JSON.stringify(shown);
}
