import type { Readable } from "node:stream";
import { StringDecoder } from "node:string_decoder";
import { payloadError } from "../errors.ts";
import type { EdgeLimits } from "../ports.ts";
import { fileLimitOf } from "../scan/job.ts";
import { isFileKind, type ReportKind } from "../scan/types.ts";
import { MAX_LANGUAGE_LENGTH, MAX_PAGE_URL_LENGTH } from "./fields.ts";
import { Base64Field, type DataSink } from "./base64-field.ts";

// The JSON body of a scan endpoint, read as it streams in: never held whole, never parsed into a copy of itself.
// A small JSON tokenizer keeps only what the request's validation reads (request.ts): the top-level members `data`,
// `spec_id`, `workspace_id`, `name`, `targeting` and targeting's `device`, `language`, `country`, `page_url`; every
// other value is checked for syntax and dropped. `data` goes straight through the strict base64 checks into its
// decoded bytes (base64-field.ts) — or, for a request the edge does not keep (its customer at the in-flight cap),
// into the few facts its checks and digest need. So a 13 MB body costs the edge its decoded bytes at most (10 MB for
// a zip), and nothing when it is not kept; it used to cost the body, its text, the parsed string, the bytes and a
// re-encoding to compare (~60 MB).
//
// Verdicts are JSON.parse's (test/scan-body-reader.test.ts compares them): the same documents are valid, the last
// of duplicate members wins, numbers are read exactly, and a value kept short (a string longer than any check lets
// through) gets the same answer as the whole one. Errors, in the order the buffered parser gave them: the body limit
// while reading, then a Content-Length the body did not match, then "a JSON object is required" for a blank body and
// "not valid JSON".

const OBJ = 0;
const ARR = 1;

const enum S {
  Value, // a value is expected (after ':' or ',' in an array, or at the start)
  ArrFirst, // after '[': a value or ']'
  ObjFirst, // after '{': a key or '}'
  ObjKey, // after ',' in an object: a key
  Colon, // after a key
  After, // after a value inside a container: ',' or the closing bracket
  End, // after the top-level value: only whitespace
  Str,
  StrEsc,
  StrHex,
  Num,
  Lit,
}

const enum N {
  Sign, // after '-'
  Zero, // integer part "0"
  Int,
  Dot,
  Frac,
  Exp,
  ExpSign,
  ExpDigits,
}

const isWs = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const STRING_SPECIAL = /["\\\u0000-\u001f]/g;
const ESCAPES: Record<string, string> = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };
const HEX = /^[0-9A-Fa-f]$/;

// `url`: the raw-file scans' alternative to `data` (other endpoints ignore it like any unknown member).
const TOP_KEYS = new Set(["data", "url", "spec_id", "workspace_id", "name", "targeting"]);
const TARGETING_KEYS = new Set(["device", "language", "country", "page_url"]);
// Keys longer than this are none of the above: not kept.
const MAX_KEY = 16;

type Json = Record<string, unknown>;

interface StringSink {
  write(piece: string): void;
  value(): unknown;
}

// Keeps the first `max` characters: every check of these fields (name, language, page_url, device, country) refuses a
// value of `max` characters for being too long or not one of its values, exactly as it refuses the whole one.
class BoundedString implements StringSink {
  private parts: string[] = [];
  private n = 0;
  constructor(private readonly max: number) {}
  write(piece: string): void {
    if (this.n >= this.max) return;
    const part = piece.length > this.max - this.n ? piece.slice(0, this.max - this.n) : piece;
    this.parts.push(part);
    this.n += part.length;
  }
  value(): string {
    return this.parts.join("");
  }
}

const SKIP: StringSink = { write() {}, value: () => "" };

// A JSON number read exactly in bounded memory: a decimal needs no more than ~770 significant digits to round to the
// nearest double; later digits count only as "some are not zero" (a 1 after the 800th).
class NumberReader {
  private neg = false;
  private sig = "";
  private sticky = false;
  private e = 0; // value = 0.<sig> × 10^(e + exp)
  private expNeg = false;
  private exp = 0;
  private expDigits = 0;
  sign(): void {
    this.neg = true;
  }
  intDigit(c: string): void {
    // The integer part has no leading zero but a lone "0", which adds nothing.
    if (this.sig === "" && c === "0") return;
    this.digit(c);
    this.e++;
  }
  fracDigit(c: string): void {
    if (this.sig === "" && c === "0") {
      this.e--;
      return;
    }
    this.digit(c);
  }
  private digit(c: string): void {
    if (this.sig.length < 800) this.sig += c;
    else if (c !== "0") this.sticky = true;
  }
  expSign(c: string): void {
    this.expNeg = c === "-";
  }
  expDigit(c: string): void {
    if (this.exp === 0 && c === "0") return;
    // Beyond 12 digits the result is Infinity or 0 whatever they are.
    if (++this.expDigits <= 12) this.exp = this.exp * 10 + Number(c);
  }
  value(): number {
    if (this.sig === "") return this.neg ? -0 : 0;
    const e = this.e + (this.expNeg ? -this.exp : this.exp);
    return Number(`${this.neg ? "-" : ""}0.${this.sig}${this.sticky ? "1" : ""}e${e}`);
  }
}

/** Where the value being read goes: the body's root, a top-level member, a member of `targeting` — or nowhere. */
type Dest = { to: "root" } | { to: "top"; key: string } | { to: "targeting"; key: string } | undefined;

export interface ScanBodyOptions {
  kind: ReportKind;
  limits: EdgeLimits;
  /** Keep the decoded payload (false: the customer is at its in-flight cap; only facts are kept). */
  keepPayload: boolean;
  /** The Content-Length header, if any, to size the payload buffer once. */
  contentLength?: number;
}

export class ScanBodyParser {
  private state = S.Value;
  private stack = new Uint8Array(64);
  private depth = 0;
  private failed = false;
  private content = false;
  // The body as validation reads it (only the kept members), or the root placeholder.
  private root: unknown = undefined;
  private top: Json | undefined;
  private targeting: Json | undefined;
  private targetingDepth = -1;
  // The key being read or last read, at the top level and in targeting.
  private topKey = "";
  private targetingKey = "";
  // The value being read.
  private dest: Dest;
  private readingKey = false;
  private key: BoundedString | undefined;
  private sink: StringSink | Base64Field = SKIP;
  private hex = "";
  private num: { state: N; reader?: NumberReader } = { state: N.Int };
  private lit = { word: "", at: 0, value: null as unknown };
  private readonly maxString: number;
  private readonly dataMax: number;
  private readonly dataSink: DataSink;
  private readonly sizeHint: number;

  constructor(opts: ScanBodyOptions) {
    const { limits, kind } = opts;
    // Longer than any check below lets through (name counts code points: up to two units each).
    this.maxString = Math.max(2 * limits.maxNameLength + 2, MAX_PAGE_URL_LENGTH + 1, MAX_LANGUAGE_LENGTH + 1, 64);
    const tag = kind === "tag_v3" || kind === "tag_v2";
    const vast = kind === "vast_v3";
    // The same limits request.ts decodes with; a VAST URL is small and always kept. A raw file withheld keeps what a
    // zip's does: its size, first bytes and digest.
    this.dataMax = tag ? limits.maxTagBytes : vast ? limits.maxVastUrlBytes + 64 : isFileKind(kind) ? fileLimitOf(kind, limits) : limits.maxZipBytes;
    this.dataSink = opts.keepPayload || vast ? "keep" : tag ? "tag-facts" : "zip-facts";
    this.sizeHint = opts.contentLength ? Math.ceil((opts.contentLength * 3) / 4) : 64 * 1024;
  }

  write(text: string): void {
    if (!this.content && /\S/.test(text)) this.content = true;
    if (this.failed) return;
    let i = 0;
    const n = text.length;
    while (i < n) {
      switch (this.state) {
        case S.Str: {
          STRING_SPECIAL.lastIndex = i;
          const m = STRING_SPECIAL.exec(text);
          const j = m ? m.index : n;
          if (j > i) (this.readingKey ? this.key! : this.sink).write(text.slice(i, j));
          if (!m) return;
          const c = text[j]!;
          i = j + 1;
          if (c === '"') this.endString();
          else if (c === "\\") this.state = S.StrEsc;
          else return this.fail();
          continue;
        }
        case S.StrEsc: {
          const c = text[i++]!;
          if (c === "u") {
            this.hex = "";
            this.state = S.StrHex;
          } else {
            const e = ESCAPES[c];
            if (e === undefined) return this.fail();
            (this.readingKey ? this.key! : this.sink).write(e);
            this.state = S.Str;
          }
          continue;
        }
        case S.StrHex: {
          const c = text[i++]!;
          if (!HEX.test(c)) return this.fail();
          this.hex += c;
          if (this.hex.length === 4) {
            (this.readingKey ? this.key! : this.sink).write(String.fromCharCode(parseInt(this.hex, 16)));
            this.state = S.Str;
          }
          continue;
        }
        case S.Num: {
          if (this.number(text.charCodeAt(i), text[i]!)) i++;
          else if (this.failed) return;
          continue;
        }
        case S.Lit: {
          if (text[i] !== this.lit.word[this.lit.at]) return this.fail();
          i++;
          if (++this.lit.at === this.lit.word.length) this.endValue(this.lit.value);
          continue;
        }
      }
      const code = text.charCodeAt(i);
      if (isWs(code)) {
        i++;
        continue;
      }
      const c = text[i++]!;
      switch (this.state) {
        case S.Value:
          this.startValue(c, code);
          break;
        case S.ArrFirst:
          if (c === "]") this.close(ARR);
          else this.startValue(c, code);
          break;
        case S.ObjFirst:
        case S.ObjKey:
          if (c === '"') this.startKey();
          else if (c === "}" && this.state === S.ObjFirst) this.close(OBJ);
          else this.fail();
          break;
        case S.Colon:
          if (c === ":") this.state = S.Value;
          else this.fail();
          break;
        case S.After:
          if (c === ",") this.state = this.stack[this.depth - 1] === OBJ ? S.ObjKey : S.Value;
          else if (c === "}" || c === "]") this.close(c === "}" ? OBJ : ARR);
          else this.fail();
          break;
        case S.End:
          this.fail();
          break;
      }
      if (this.failed) return;
    }
  }

  /** The body as request.ts validates it; throws the payload_error of a blank or invalid body. */
  end(): unknown {
    if (this.state === S.Num && !this.failed) {
      // A number at the top level ends with the body.
      if (this.depth === 0 && (this.num.state === N.Zero || this.num.state === N.Int || this.num.state === N.Frac || this.num.state === N.ExpDigits)) {
        this.endValue(this.num.reader ? this.num.reader.value() : 0);
      } else this.fail();
    }
    if (!this.content) throw payloadError("body: a JSON object is required");
    if (this.failed || this.state !== S.End) throw payloadError("body: not valid JSON");
    return this.root;
  }

  private fail(): void {
    this.failed = true;
  }

  private where(): Dest {
    if (this.depth === 0) return { to: "root" };
    if (this.depth === 1 && this.top) return TOP_KEYS.has(this.topKey) ? { to: "top", key: this.topKey } : undefined;
    if (this.depth === 2 && this.targetingDepth === 1) return TARGETING_KEYS.has(this.targetingKey) ? { to: "targeting", key: this.targetingKey } : undefined;
    return undefined;
  }

  private put(dest: Dest, value: unknown): void {
    if (!dest) return;
    if (dest.to === "root") this.root = value;
    else if (dest.to === "top") this.top![dest.key] = value;
    else this.targeting![dest.key] = value;
  }

  private startValue(c: string, code: number): void {
    const dest = this.where();
    this.dest = dest;
    switch (c) {
      case "{": {
        const obj: Json = {};
        if (dest?.to === "root") this.top = obj;
        else if (dest?.to === "top" && dest.key === "targeting") {
          this.targeting = obj;
          this.targetingDepth = this.depth;
        }
        this.put(dest, obj);
        this.push(OBJ);
        this.state = S.ObjFirst;
        return;
      }
      case "[":
        this.put(dest, []);
        this.push(ARR);
        this.state = S.ArrFirst;
        return;
      case '"':
        this.readingKey = false;
        this.sink =
          dest?.to === "top" && dest.key === "data"
            ? new Base64Field(this.dataMax, this.dataSink, this.sizeHint)
            : dest && dest.to !== "root"
              ? new BoundedString(this.maxString)
              : SKIP;
        this.state = S.Str;
        return;
      case "t":
      case "f":
      case "n":
        this.lit = { word: c === "t" ? "true" : c === "f" ? "false" : "null", at: 1, value: c === "t" ? true : c === "f" ? false : null };
        this.state = S.Lit;
        return;
    }
    if (c === "-" || isDigit(code)) {
      const reader = dest && dest.to !== "root" ? new NumberReader() : undefined;
      if (c === "-") {
        reader?.sign();
        this.num = { state: N.Sign, reader };
      } else if (c === "0") this.num = { state: N.Zero, reader };
      else {
        reader?.intDigit(c);
        this.num = { state: N.Int, reader };
      }
      this.state = S.Num;
      return;
    }
    this.fail();
  }

  // One character of a number; false when the number ended before it (the character is read again).
  private number(code: number, c: string): boolean {
    const num = this.num;
    const digit = isDigit(code);
    switch (num.state) {
      case N.Sign:
        if (!digit) return (this.fail(), false);
        if (c === "0") num.state = N.Zero;
        else {
          num.reader?.intDigit(c);
          num.state = N.Int;
        }
        return true;
      case N.Zero:
      case N.Int:
        if (digit && num.state === N.Int) {
          num.reader?.intDigit(c);
          return true;
        }
        if (c === ".") return ((num.state = N.Dot), true);
        if (c === "e" || c === "E") return ((num.state = N.Exp), true);
        break;
      case N.Dot:
      case N.Frac:
        if (digit) {
          num.reader?.fracDigit(c);
          num.state = N.Frac;
          return true;
        }
        if (num.state === N.Dot) return (this.fail(), false);
        if (c === "e" || c === "E") return ((num.state = N.Exp), true);
        break;
      case N.Exp:
      case N.ExpSign:
      case N.ExpDigits:
        if (num.state === N.Exp && (c === "+" || c === "-")) {
          num.reader?.expSign(c);
          num.state = N.ExpSign;
          return true;
        }
        if (digit) {
          num.reader?.expDigit(c);
          num.state = N.ExpDigits;
          return true;
        }
        if (num.state !== N.ExpDigits) return (this.fail(), false);
        break;
    }
    // The number ended: the character after it belongs to what follows.
    this.endValue(num.reader ? num.reader.value() : 0);
    return false;
  }

  private startKey(): void {
    this.readingKey = true;
    const kept = (this.depth === 1 && this.top !== undefined) || (this.depth === 2 && this.targetingDepth === 1);
    this.key = new BoundedString(kept ? MAX_KEY + 1 : 0);
    this.state = S.Str;
  }

  private endString(): void {
    if (this.readingKey) {
      const key = this.key!.value();
      if (this.depth === 1) this.topKey = key;
      else if (this.depth === 2) this.targetingKey = key;
      this.readingKey = false;
      this.state = S.Colon;
      return;
    }
    const sink = this.sink;
    this.sink = SKIP;
    this.endValue(sink instanceof Base64Field ? sink : sink.value());
  }

  private endValue(value: unknown): void {
    this.put(this.dest, value);
    this.dest = undefined;
    this.state = this.depth === 0 ? S.End : S.After;
  }

  private push(type: number): void {
    if (this.depth === this.stack.length) {
      const grown = new Uint8Array(this.stack.length * 2);
      grown.set(this.stack);
      this.stack = grown;
    }
    this.stack[this.depth++] = type;
  }

  private close(type: number): void {
    if (this.depth === 0 || this.stack[this.depth - 1] !== type) return this.fail();
    this.depth--;
    if (this.depth === this.targetingDepth) this.targetingDepth = -1;
    // The container's value was put when it opened.
    this.dest = undefined;
    this.state = this.depth === 0 ? S.End : S.After;
  }
}

/**
 * Reads a scan endpoint's body from its stream with the limits the buffered parser had: over `maxBodyBytes` (by its
 * Content-Length, or as it arrives) → "body: larger than the limit"; fewer or more bytes than its Content-Length →
 * "body: must be a JSON object"; then the parser's verdict.
 */
export function readScanBody(payload: Readable, opts: ScanBodyOptions): Promise<unknown> {
  const limit = opts.limits.maxBodyBytes;
  const declared = opts.contentLength;
  return new Promise((resolve, reject) => {
    if (declared !== undefined && declared > limit) return reject(payloadError("body: larger than the limit"));
    const parser = new ScanBodyParser(opts);
    const text = new StringDecoder("utf8");
    let received = 0;
    const cleanup = () => {
      payload.removeListener("data", onData);
      payload.removeListener("end", onEnd);
      payload.removeListener("error", onEnd);
    };
    function onData(chunk: Buffer | string) {
      const bytes = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
      received += bytes.length;
      if (received > limit) {
        cleanup();
        reject(payloadError("body: larger than the limit"));
        return;
      }
      parser.write(text.write(bytes));
    }
    function onEnd(err?: Error & { statusCode?: number }) {
      cleanup();
      if (err) {
        // The client went away or the stream broke: nobody reads the answer; Fastify maps a 4xx error.
        if (!(typeof err.statusCode === "number" && err.statusCode >= 400)) err.statusCode = 400;
        return reject(err);
      }
      if (declared !== undefined && received !== declared) return reject(payloadError("body: must be a JSON object"));
      try {
        parser.write(text.end());
        resolve(parser.end());
      } catch (e) {
        reject(e);
      }
    }
    payload.on("data", onData);
    payload.on("end", onEnd);
    payload.on("error", onEnd);
    payload.resume();
  });
}
