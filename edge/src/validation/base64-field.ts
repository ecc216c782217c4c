import { createHash, type Hash } from "node:crypto";
import { StringDecoder } from "node:string_decoder";
import { startHtmlHash } from "../scan/request-hash.ts";

// The `data` field of a scan request as the body streams past: the strict base64 checks of base64.ts made piece by
// piece, and the decoded bytes either kept (written straight into one buffer: no copy of the text, no second decode)
// or, for a request the edge does not hold (its customer was at the in-flight cap when it arrived), only the facts
// the payload checks and the idempotency digest need — its size, first bytes, whether the text is blank, a digest.

const ALPHABET = /[^A-Za-z0-9+/]/;
const NOT_PAD = /[^=]/;
const VALUE: Record<string, number> = Object.fromEntries([..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"].map((c, i) => [c, i]));

/** What is kept of the decoded bytes: all of them, or what an ad tag's / a zip's checks and digest need. */
export type DataSink = "keep" | "tag-facts" | "zip-facts";

export interface WithheldFacts {
  /** The first (up to) 4 decoded bytes: a zip's signature. */
  head: Uint8Array;
  /** tag-facts: the decoded bytes read as UTF-8 are only whitespace. */
  blank: boolean;
  /** tag-facts: the request digest fed up to the end of the html (request-hash.ts finishes it); zip-facts: the bytes'. */
  hash: Hash;
}

/** A JSON string read as strict base64, without ever holding its text. */
export class Base64Field {
  /** Length of the JSON string, UTF-16 units (as `value.length`). */
  length = 0;
  private phase: "data" | "pad" = "data";
  private pad = 0;
  private shape = true;
  private tail = "";
  private carry = "";
  private decoded = 0;
  private out: Buffer | undefined;
  private head = Buffer.alloc(4);
  private hash: Hash | undefined;
  private text: StringDecoder | undefined;
  private blank = true;

  constructor(
    private readonly maxBytes: number,
    private readonly sink: DataSink,
    /** The expected decoded size (from the body's length), to size the buffer once. */
    sizeHint = 64 * 1024,
  ) {
    if (sink === "keep") this.out = Buffer.allocUnsafe(Math.max(3, Math.min(maxBytes, sizeHint) + 3));
    else if (sink === "zip-facts") this.hash = createHash("sha256");
    else {
      // The digest of a tag request as request-hash.ts computes it, fed with the html JSON-escaped piece by piece.
      this.hash = startHtmlHash();
      this.text = new StringDecoder("utf8");
    }
  }

  /** A piece of the string's (unescaped) text, in order. */
  write(piece: string): void {
    if (piece.length === 0) return;
    this.length += piece.length;
    if (this.shape) this.checkShape(piece);
    this.tail = (this.tail + piece.slice(-4)).slice(-4);
    if (!this.shape || this.decoded > this.maxBytes) return;
    const text = this.carry + piece;
    const usable = text.length - (text.length % 4);
    this.carry = text.slice(usable);
    if (usable > 0) this.decode(text.slice(0, usable));
  }

  private checkShape(piece: string): void {
    if (this.phase === "data") {
      const bad = ALPHABET.exec(piece);
      if (!bad) return;
      if (piece[bad.index] !== "=") {
        this.shape = false;
        return;
      }
      this.phase = "pad";
      piece = piece.slice(bad.index);
    }
    if (NOT_PAD.test(piece)) this.shape = false;
    this.pad += piece.length;
    if (this.pad > 2) this.shape = false;
  }

  private decode(groups: string): void {
    const n = (groups.length / 4) * 3 - (groups.endsWith("==") ? 2 : groups.endsWith("=") ? 1 : 0);
    if (this.decoded + n > this.maxBytes) {
      // Over the limit whatever follows: the answer is a payload_error, nothing more to decode.
      this.decoded += n;
      return;
    }
    if (this.out) {
      if (this.decoded + n > this.out.length) {
        const grown = Buffer.allocUnsafe(Math.min(this.maxBytes + 3, Math.max(this.out.length * 2, this.decoded + n)));
        this.out.copy(grown, 0, 0, this.decoded);
        this.out = grown;
      }
      this.decoded += this.out.write(groups, this.decoded, "base64");
      return;
    }
    const bytes = Buffer.from(groups, "base64");
    if (this.decoded < 4) bytes.copy(this.head, this.decoded, 0, Math.min(bytes.length, 4 - this.decoded));
    this.decoded += bytes.length;
    if (this.text) this.feedText(this.text.write(bytes));
    else this.hash!.update(bytes);
  }

  private feedText(s: string): void {
    if (s.length === 0) return;
    if (this.blank && /\S/.test(s)) this.blank = false;
    this.hash!.update(JSON.stringify(s).slice(1, -1), "utf8");
  }

  /** Strict base64 (standard alphabet, '=' padding to a multiple of 4, no whitespace). */
  get isBase64(): boolean {
    return this.shape && this.length % 4 === 0;
  }

  /** Decoded length of a syntactically valid field, computed without decoding. */
  get decodedLength(): number {
    return (this.length / 4) * 3 - this.pad;
  }

  /** The unused bits of the last group are zero: the text is the one base64 spelling of its bytes. */
  get canonical(): boolean {
    if (this.pad === 0) return true;
    const last = VALUE[this.tail[this.tail.length - 1 - this.pad] ?? ""] ?? 0;
    return (last & (this.pad === 1 ? 0x03 : 0x0f)) === 0;
  }

  /** The decoded bytes (sink "keep"), once the field is known to be valid. */
  bytes(): Buffer {
    if (!this.out) throw new Error("Base64Field: bytes were not kept");
    return this.out.subarray(0, this.decoded);
  }

  /** What a withheld payload's checks and digest need (sinks "tag-facts", "zip-facts"); once, at the end. */
  facts(): WithheldFacts {
    if (this.text) this.feedText(this.text.end());
    return { head: this.head.subarray(0, Math.min(4, this.decoded)), blank: this.blank, hash: this.hash! };
  }

  get kept(): boolean {
    return this.out !== undefined;
  }
}
