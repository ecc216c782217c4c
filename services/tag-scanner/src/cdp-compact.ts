/**
 * Shortens every long JSON string of a CDP message as its bytes stream in, leaving the rest of the message as it is.
 *
 * URLs are the creative's to size: a `data:` URL may be hundreds of MB (http ones up to 2 MB), and Chromium repeats
 * it whole in Network.requestWillBeSent, Network.responseReceived, Page.frameNavigated, Target.targetInfoChanged, …
 * (measured: ten `fetch()`es of a 20 MB data: URL made 294 MB of events parsed on the scanner's event loop, for one
 * scan). Those events still matter — the request is one of the scan's, with its id, type and timing — so they are not
 * dropped: each string over `maxStringBytes` keeps its first bytes and ends with a note of how much was left out.
 * Only quotes and backslashes are looked for (Buffer.indexOf, memchr speed); the bytes of a skipped string are never
 * copied.
 */
export class JsonStringCompactor {
  private readonly out: Buffer[] = [];
  private inString = false;
  /** A backslash ended the previous chunk inside a string: the next byte is escaped. */
  private pendingEscape = false;
  /** Bytes of the current string kept / left out. */
  private kept: Buffer[] = [];
  private keptBytes = 0;
  private skipped = 0;

  constructor(private readonly maxStringBytes: number) {}

  push(chunk: Buffer): void {
    let pos = 0;
    while (pos < chunk.length) {
      if (!this.inString) {
        const q = chunk.indexOf(0x22, pos);
        if (q === -1) {
          this.out.push(chunk.subarray(pos));
          return;
        }
        this.out.push(chunk.subarray(pos, q + 1));
        this.inString = true;
        pos = q + 1;
        continue;
      }
      if (this.pendingEscape) {
        this.pendingEscape = false;
        this.content(chunk.subarray(pos, pos + 1));
        pos += 1;
        continue;
      }
      const q = chunk.indexOf(0x22, pos);
      const b = chunk.indexOf(0x5c, pos);
      if (b !== -1 && (q === -1 || b < q)) {
        // An escape: the backslash and the byte after it are content; the quote after it, if it is one, does not end the string.
        if (b + 1 < chunk.length) {
          this.content(chunk.subarray(pos, b + 2));
          pos = b + 2;
        } else {
          this.content(chunk.subarray(pos, b + 1));
          this.pendingEscape = true;
          pos = b + 1;
        }
        continue;
      }
      if (q === -1) {
        this.content(chunk.subarray(pos));
        return;
      }
      this.content(chunk.subarray(pos, q));
      this.closeString();
      this.out.push(chunk.subarray(q, q + 1));
      pos = q + 1;
    }
  }

  /** The compacted message; the compactor is done. */
  end(): Buffer {
    if (this.inString) this.closeString();
    return Buffer.concat(this.out);
  }

  private content(piece: Buffer): void {
    const room = this.maxStringBytes - this.keptBytes;
    if (room <= 0) {
      this.skipped += piece.length;
      return;
    }
    const keep = piece.length <= room ? piece : piece.subarray(0, room);
    this.kept.push(keep);
    this.keptBytes += keep.length;
    this.skipped += piece.length - keep.length;
  }

  private closeString(): void {
    let text: Buffer = Buffer.concat(this.kept, this.keptBytes);
    if (this.skipped > 0) {
      text = withoutPartialChar(withoutPartialEscape(text));
      const left = this.skipped + (this.keptBytes - text.length);
      text = Buffer.concat([text, Buffer.from(`… [${formatSize(left)} not read]`)]);
    }
    this.out.push(text);
    this.kept = [];
    this.keptBytes = 0;
    this.skipped = 0;
  }
}

/** The bytes without an escape sequence cut in half at their end (`\`, `\u00`), which JSON.parse would refuse. */
function withoutPartialEscape(b: Buffer): Buffer {
  for (let i = Math.max(0, b.length - 6); i < b.length; i++) {
    if (b[i] !== 0x5c) continue;
    // Is this backslash an escape's start? Only if an even number of backslashes precede it.
    let run = 0;
    for (let j = i - 1; j >= 0 && b[j] === 0x5c; j--) run++;
    if (run % 2 === 1) continue;
    const need = b[i + 1] === 0x75 ? 6 : 2;
    if (i + need > b.length) return b.subarray(0, i);
    i += need - 1;
  }
  return b;
}

/** The bytes without a UTF-8 sequence cut in half at their end (it would decode as U+FFFD). */
function withoutPartialChar(b: Buffer): Buffer {
  let i = b.length - 1;
  while (i >= 0 && i >= b.length - 4 && (b[i]! & 0xc0) === 0x80) i--;
  if (i < 0 || b[i]! < 0xc0) return b;
  const len = b[i]! >= 0xf0 ? 4 : b[i]! >= 0xe0 ? 3 : 2;
  return i + len > b.length ? b.subarray(0, i) : b;
}

function formatSize(n: number): string {
  return n >= 1024 * 1024 ? `${(n / 1024 / 1024).toFixed(1)} MB` : `${Math.max(1, Math.round(n / 1024))} KB`;
}
