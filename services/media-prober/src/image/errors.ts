/**
 * The file given to scanImage cannot be measured, and it is the file's doing: empty, over a limit, not an image, a
 * format browsers do not show in ads, a header claiming more pixels or frames than allowed, corrupt, or a decode that
 * ran past its time or memory bound. The scan answers payload_error with `message`, which is client-safe: it names
 * the cause and the limit, never a server path, a library's stack or raw decoder output beyond one short line.
 */
export class ImageInputError extends Error {
  override readonly name = "ImageInputError";
  constructor(message: string) {
    super(message);
  }
}

/** A decoder message cut to one short line with control characters removed, for a client-safe error. */
export function decoderDetail(e: unknown): string {
  const raw = e instanceof Error ? e.message : String(e);
  const line = raw.split("\n").find((l) => l.trim() !== "") ?? "error";
  // Paths never reach libvips (the bytes are passed as a buffer), so this is the decoder's own wording.
  return line.replace(/[\u0000-\u001f\u007f]/g, " ").trim().slice(0, 160);
}
