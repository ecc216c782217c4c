import type { Readable, Writable } from "node:stream";
import type { ConnectionTransport } from "puppeteer-core";
import { JsonStringCompactor } from "./cdp-compact.ts";

/**
 * The CDP pipe between Chromium and this process, bounded before anything is parsed.
 *
 * Every message of a browser — every scan's events in it — crosses one pipe and is turned into a string and
 * JSON.parse'd on this process's event loop. Puppeteer's own pipe transport does that for every message whole, so a
 * creative logging multi-MB strings in a loop (measured: 4 × 1 MB console.error) clogged the pipe for every scan of
 * that browser: their render watches timed out waiting behind the creative's messages. Here each message is looked at
 * as bytes first — its method is at the very start (`{"method":"Runtime.consoleAPICalled",…`), the session id at the
 * very end (`…,"sessionId":"…"}`) — and:
 *  - a console message, uncaught exception, log entry or dialog over eventTextMaxBytes is never assembled: only its
 *    first and last bytes are kept, and the session gets a small event in its place that carries the start of the
 *    text and says how large it was (the report still lists it, cut as every console entry is);
 *  - console events beyond consoleBudget per session and kind (errors, warnings, the rest, exceptions, log entries)
 *    are dropped unparsed: a scan reports at most 200 errors and 200 warnings, so a loop of them is noise; and beyond
 *    contextConsoleBudget per browser context (one scan) and kind, whichever session they come on — every dedicated
 *    worker is a session of its own (puppeteer attaches to it and enables its Runtime), so a budget per session alone
 *    let a creative multiply it by the workers it starts (measured: 16 workers, 8 002 events parsed for 500); and
 *    once a context's text events over 4 KB add up to contextTextBytes, each further one gets its stand-in (the
 *    count budgets alone let 2 000 events of 255 KB each through: 48.7 MB of Log.entryAdded for one scan's failed
 *    fetches of 200 KB URLs, 512 MB possible);
 *  - a network, fetch, target or frame event over compactAboveBytes has every JSON string longer than
 *    maxStringBytes shortened as it streams in (cdp-compact.ts): those carry URLs, whose size the creative chooses
 *    (a data: URL of hundreds of MB, repeated whole in several events per request);
 *  - any other event over otherEventMaxBytes is dropped; a response over responseMaxBytes becomes an error
 *    response to its command (the caller fails at once instead of waiting for its time-out).
 * Bytes are only scanned for the separator (memchr speed); what is dropped is never copied or decoded.
 */
export interface PipeLimits {
  /** A console message, exception, log entry or dialog larger than this is replaced by a stand-in. */
  eventTextMaxBytes: number;
  /** Console events delivered per session and kind (errors, warnings, other console calls, exceptions, log entries). */
  consoleBudget: number;
  /** Console events delivered per browser context (a scan) and kind, over all its sessions: pages, frames, workers. */
  contextConsoleBudget: number;
  /**
   * Bytes of text events (console, exceptions, log entries, dialogs) over 4 KB delivered whole per browser context;
   * past it each such event gets its stand-in, as one over eventTextMaxBytes does.
   */
  contextTextBytes: number;
  /** Any other event larger than this is dropped. */
  otherEventMaxBytes: number;
  /** A network/fetch/target/frame event larger than this has its long strings shortened before it is parsed. */
  compactAboveBytes: number;
  /** What such an event keeps of each string: the report keeps ≤ 8 KB of a URL and ≤ 16 KB of headers anyway. */
  maxStringBytes: number;
  /** A response larger than this becomes an error response to its command. */
  responseMaxBytes: number;
}

/**
 * 256 KB: an ordinary console message is a few hundred bytes, a stack-heavy one a few KB; the report keeps 1 000
 * characters of each. 500 per kind: 2.5 times the 200 errors and 200 warnings a report keeps; 2 000 per scan and kind:
 * the scan's page has two sessions listening (puppeteer's and the scan's), each given its 500, and the rest is shared
 * by whatever else the creative starts; 16 MB of large text events per scan: 64 of the largest. 32 KB before a
 * network event is compacted: an ordinary one is a few KB, and a 200 KB URL in a loop made 124 MB of them for one scan
 * (12.9 MB at 32 KB); 16 KB kept of each string, the most a network record keeps. 32 MB for other events:
 * the largest the scan needs are screencast frames (~100 KB). 256 MB for responses: the answers to the scan's own
 * commands (a screenshot is ≤ 8 M pixels), half of V8's longest string.
 */
export const DEFAULT_PIPE_LIMITS: PipeLimits = {
  eventTextMaxBytes: 256 * 1024,
  consoleBudget: 500,
  contextConsoleBudget: 2_000,
  contextTextBytes: 16 * 1024 * 1024,
  otherEventMaxBytes: 32 * 1024 * 1024,
  compactAboveBytes: 32 * 1024,
  maxStringBytes: 16 * 1024,
  responseMaxBytes: 256 * 1024 * 1024,
};

const HEAD_BYTES = 2048;
/** A text event this small is always delivered whole (a report keeps 1 000 characters of it). */
const SMALL_TEXT_BYTES = 4096;
const TAIL_BYTES = 256;

/** Events whose size a creative controls and that the scan can do with the start of. */
const TEXT_EVENTS = new Set(["Runtime.consoleAPICalled", "Runtime.exceptionThrown", "Log.entryAdded", "Page.javascriptDialogOpening"]);
/** Events whose long strings are URLs (and headers) the creative sized: shortened rather than parsed whole. */
const COMPACTED = /^(?:Network|Fetch|Target)\.|^Page\.(?:frame|navigatedWithinDocument|windowOpen|documentOpened)/;
/** Events counted against the console budget. */
const BUDGETED = new Set(["Runtime.consoleAPICalled", "Runtime.exceptionThrown", "Log.entryAdded"]);

export interface TransportStats {
  /** Text events replaced by a small one because of their size. */
  cut: number;
  /** Console events over the per-session budget, and oversized other events, dropped unparsed. */
  dropped: number;
  /** Responses too large to read, answered with an error. */
  refused: number;
  /** Network/target/frame events delivered with their long strings shortened. */
  compacted: number;
}

interface Head {
  method?: string;
  id?: number;
}

function headOf(bytes: Buffer): Head {
  const text = bytes.toString("latin1", 0, Math.min(bytes.length, 200));
  const m = /^\{"method":"([A-Za-z.]{1,100})"/.exec(text);
  if (m) return { method: m[1] };
  const id = /^\{"id":(\d{1,15})[,}]/.exec(text);
  return id ? { id: Number(id[1]) } : {};
}


const sessionIdOf = (tail: string) => /"sessionId":"([0-9A-Za-z]{1,64})"\}$/.exec(tail)?.[1];

/** The first JSON string value after `key` in a cut-off prefix, decoded; an escape cut in half is dropped. */
function stringAfter(head: string, key: string, max = 300): string | undefined {
  const at = head.indexOf(`"${key}":"`);
  if (at < 0) return undefined;
  let raw = head.slice(at + key.length + 4);
  const end = /(?<!\\)(?:\\\\)*"/.exec(raw);
  if (end) raw = raw.slice(0, end.index + end[0].length - 1);
  raw = raw.replace(/\\(u[0-9a-fA-F]{0,3})?$/, "");
  for (let cut = raw.length; cut > 0 && raw.length - cut < 8; cut--) {
    try {
      return (JSON.parse(`"${raw.slice(0, cut)}"`) as string).slice(0, max);
    } catch {
      /* a partial escape or surrogate at the cut: try a shorter prefix */
    }
  }
  return "";
}

const size = (n: number) => (n >= 1024 * 1024 ? `${(n / 1024 / 1024).toFixed(1)} MB` : `${Math.round(n / 1024)} KB`);

/** A small event that stands in for a text event too large to read. */
function standIn(method: string, head: string, tail: string, bytes: number): string | undefined {
  const sessionId = sessionIdOf(tail);
  const session = sessionId ? { sessionId } : {};
  const note = `[${size(bytes)} not read]`;
  const text = (t: string | undefined) => (t ? `${t}… ${note}` : note);
  switch (method) {
    case "Runtime.consoleAPICalled": {
      const type = /"params":\{"type":"([a-zA-Z]{1,20})"/.exec(head)?.[1] ?? "log";
      const args = head.slice(head.indexOf('"args":['));
      const value = stringAfter(args, "value") ?? stringAfter(args, "description");
      return JSON.stringify({
        method, params: { type, args: [{ type: "string", value: text(value) }], executionContextId: 0, timestamp: 0 }, ...session,
      });
    }
    case "Runtime.exceptionThrown":
      return JSON.stringify({
        method,
        params: { timestamp: 0, exceptionDetails: { exceptionId: 0, text: `Uncaught (an exception message ${note})`, lineNumber: 0, columnNumber: 0 } },
        ...session,
      });
    case "Log.entryAdded": {
      const source = /"source":"([a-z-]{1,30})"/.exec(head)?.[1] ?? "other";
      const level = /"level":"([a-z]{1,20})"/.exec(head)?.[1] ?? "verbose";
      return JSON.stringify({ method, params: { entry: { source, level, text: text(stringAfter(head, "text")), timestamp: 0 } }, ...session });
    }
    case "Page.javascriptDialogOpening": {
      // The page waits for its dialog to be answered: the stand-in must reach the scan, which dismisses it.
      const type = /"type":"(alert|confirm|prompt|beforeunload)"/.exec(tail)?.[1] ?? "alert";
      const frameId = stringAfter(head, "frameId") ?? "";
      return JSON.stringify({
        method, params: { url: "", frameId, message: text(stringAfter(head, "message")), type, hasBrowserHandler: false, defaultPrompt: "" }, ...session,
      });
    }
    default:
      return undefined;
  }
}

/** The console budget's kind of an event, from its start. */
function budgetKind(method: string, head: string): string {
  if (method !== "Runtime.consoleAPICalled") return method;
  const type = /"params":\{"type":"([a-zA-Z]{1,20})"/.exec(head)?.[1];
  return type === "error" || type === "assert" ? "error" : type === "warning" ? "warning" : "other";
}

/** The first `n` bytes of a message held in pieces, copying no more than that. */
function firstBytes(parts: Buffer[], n: number): Buffer {
  const out: Buffer[] = [];
  let have = 0;
  for (const p of parts) {
    if (have >= n) break;
    out.push(p.subarray(0, n - have));
    have += Math.min(p.length, n - have);
  }
  return Buffer.concat(out, have);
}

/** The last `n` bytes of a message held in pieces. */
function lastBytes(parts: Buffer[], n: number): Buffer {
  const out: Buffer[] = [];
  let have = 0;
  for (let i = parts.length - 1; i >= 0 && have < n; i--) {
    const p = parts[i]!;
    out.unshift(p.subarray(Math.max(0, p.length - (n - have))));
    have += Math.min(p.length, n - have);
  }
  return Buffer.concat(out, have);
}

/** The counters of one session or context; sessions end with Target.detachedFromTarget, and this bound holds if one is missed. */
function counters(all: Map<string, Map<string, number>>, key: string): Map<string, number> {
  let c = all.get(key);
  if (!c) {
    if (all.size >= 10_000) all.delete(all.keys().next().value!);
    c = new Map();
    all.set(key, c);
  }
  return c;
}

export class BoundedPipeTransport implements ConnectionTransport {
  onmessage?: (message: string) => void;
  onclose?: () => void;
  readonly stats: TransportStats = { cut: 0, dropped: 0, refused: 0, compacted: 0 };
  private parts: Buffer[] = [];
  private bytes = 0;
  /** Set once the current message passed its cap: only its head and tail are kept from then on. */
  private over: { head: Buffer; tail: Buffer; info: Head } | undefined;
  /** Set once the current message is an event whose long strings are being shortened. */
  private compact: JsonStringCompactor | undefined;
  private cap = Infinity;
  private info: Head | undefined;
  /** Console events delivered, per session and kind. */
  private budgets = new Map<string, Map<string, number>>();
  /** The browser context of each attached session (from Target.attachedToTarget), and its console events delivered. */
  private contextOf = new Map<string, string>();
  private contextBudgets = new Map<string, Map<string, number>>();
  /** Bytes of large text events delivered whole, per browser context. */
  private contextText = new Map<string, number>();
  private closed = false;

  private readonly limits: PipeLimits;

  constructor(private readonly pipeWrite: Writable, pipeRead: Readable, limits: Partial<PipeLimits> = {}) {
    this.limits = { ...DEFAULT_PIPE_LIMITS, ...limits };
    pipeRead.on("data", (chunk: Buffer) => this.read(chunk));
    pipeRead.once("close", () => {
      this.closed = true;
      this.onclose?.();
    });
    // Chromium gone mid-write: its 'close' follows, which ends the connection.
    pipeRead.on("error", () => {});
    pipeWrite.on("error", () => {});
  }

  send(message: string): void {
    if (this.closed) return;
    this.pipeWrite.write(message);
    this.pipeWrite.write("\0");
  }

  close(): void {
    this.closed = true;
  }

  private read(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const end = chunk.indexOf(0, start);
      const piece = end === -1 ? chunk.subarray(start) : chunk.subarray(start, end);
      if (piece.length > 0) this.append(piece);
      if (end === -1) return;
      this.finish();
      start = end + 1;
    }
  }

  private append(piece: Buffer): void {
    this.bytes += piece.length;
    if (this.compact) {
      this.compact.push(piece);
      return;
    }
    if (this.over) {
      const t = Buffer.concat([this.over.tail, piece]);
      this.over.tail = t.subarray(Math.max(0, t.length - TAIL_BYTES));
      return;
    }
    this.parts.push(piece);
    if (this.info === undefined && this.bytes >= 200) {
      this.info = headOf(firstBytes(this.parts, 200));
      this.cap = this.capFor(this.info);
    }
    if (this.info?.method && this.bytes > this.limits.compactAboveBytes && COMPACTED.test(this.info.method)) {
      this.compact = new JsonStringCompactor(this.limits.maxStringBytes);
      for (const p of this.parts) this.compact.push(p);
      this.parts = [];
      return;
    }
    if (this.bytes > Math.min(this.cap, this.limits.responseMaxBytes)) {
      const head = firstBytes(this.parts, HEAD_BYTES);
      this.over = { head, tail: lastBytes(this.parts, TAIL_BYTES), info: this.info ?? headOf(head) };
      this.parts = [];
    }
  }

  private finish(): void {
    const bytes = this.bytes;
    const over = this.over;
    const parts = this.parts;
    const compact = this.compact;
    this.parts = [];
    this.bytes = 0;
    this.over = undefined;
    this.compact = undefined;
    this.cap = Infinity;
    this.info = undefined;
    if (over) return this.deliverOver(over, bytes);
    if (bytes === 0) return;
    let message: Buffer;
    if (compact) {
      message = compact.end();
      if (message.length > this.limits.otherEventMaxBytes) {
        this.stats.dropped++;
        return;
      }
      this.stats.compacted++;
    } else {
      message = parts.length === 1 ? parts[0]! : Buffer.concat(parts, bytes);
    }
    const info = headOf(message);
    if (info.method && TEXT_EVENTS.has(info.method) && bytes > SMALL_TEXT_BYTES && !this.withinTextBytes(message)) {
      // The scan's text bytes are spent: read as if over the size cap — never decoded whole, a stand-in delivered.
      return this.deliverOver({ head: message.subarray(0, HEAD_BYTES), tail: message.subarray(bytes - TAIL_BYTES), info }, bytes);
    }
    if (info.method && BUDGETED.has(info.method)) {
      const head = message.toString("latin1", 0, Math.min(message.length, 200));
      const sessionId = sessionIdOf(message.toString("latin1", Math.max(0, message.length - TAIL_BYTES))) ?? "";
      if (!this.withinBudget(sessionId, budgetKind(info.method, head))) {
        this.stats.dropped++;
        return;
      }
    } else if (info.method === "Target.detachedFromTarget") {
      const gone = /"params":\{"sessionId":"([0-9A-Za-z]{1,64})"/.exec(message.toString("latin1", 0, 200))?.[1];
      if (gone) {
        this.budgets.delete(gone);
        this.contextOf.delete(gone);
      }
    } else if (info.method === "Target.attachedToTarget") {
      // JSON escapes every quote inside a string, so these patterns match only the protocol's own fields, never a
      // title or URL the creative chose.
      const text = message.toString("latin1");
      const session = /"params":\{"sessionId":"([0-9A-Za-z]{1,64})"/.exec(text)?.[1];
      const context = /"browserContextId":"([0-9A-Za-z]{1,64})"/.exec(text)?.[1];
      if (session && context) {
        if (this.contextOf.size >= 10_000) this.contextOf.delete(this.contextOf.keys().next().value!);
        this.contextOf.set(session, context);
      }
    }
    this.deliver(message.toString("utf8"));
  }

  private deliverOver(over: NonNullable<BoundedPipeTransport["over"]>, bytes: number): void {
    const head = over.head.toString("utf8");
    const tail = over.tail.toString("latin1");
    const { method, id } = over.info;
    if (id !== undefined) {
      const sessionId = sessionIdOf(tail);
      this.stats.refused++;
      this.deliver(JSON.stringify({ id, error: { code: -32000, message: `response of ${size(bytes)} not read (over ${size(this.limits.responseMaxBytes)})` }, ...(sessionId ? { sessionId } : {}) }));
      return;
    }
    const stand = method ? standIn(method, head, tail, bytes) : undefined;
    if (!stand) {
      this.stats.dropped++;
      return;
    }
    if (method && BUDGETED.has(method) && !this.withinBudget(sessionIdOf(tail) ?? "", budgetKind(method, head))) {
      this.stats.dropped++;
      return;
    }
    this.stats.cut++;
    this.deliver(stand);
  }

  /** Counts a large text event against its context's bytes; false once they are spent (unknown context: per message only). */
  private withinTextBytes(message: Buffer): boolean {
    const context = this.contextOf.get(sessionIdOf(message.toString("latin1", Math.max(0, message.length - TAIL_BYTES))) ?? "");
    if (context === undefined) return true;
    const used = this.contextText.get(context) ?? 0;
    if (used + message.length > this.limits.contextTextBytes) return false;
    if (!this.contextText.has(context) && this.contextText.size >= 10_000) this.contextText.delete(this.contextText.keys().next().value!);
    this.contextText.set(context, used + message.length);
    return true;
  }

  private withinBudget(sessionId: string, kind: string): boolean {
    const perSession = counters(this.budgets, sessionId);
    const n = (perSession.get(kind) ?? 0) + 1;
    if (n > this.limits.consoleBudget) return false;
    const context = this.contextOf.get(sessionId);
    if (context !== undefined) {
      const perContext = counters(this.contextBudgets, context);
      const c = (perContext.get(kind) ?? 0) + 1;
      if (c > this.limits.contextConsoleBudget) return false;
      perContext.set(kind, c);
    }
    perSession.set(kind, n);
    return true;
  }

  private capFor(h: Head): number {
    if (h.id !== undefined) return this.limits.responseMaxBytes;
    if (h.method && TEXT_EVENTS.has(h.method)) return this.limits.eventTextMaxBytes;
    return this.limits.otherEventMaxBytes;
  }

  private deliver(message: string): void {
    // As puppeteer's own pipe transport: one message per macrotask, so a burst does not starve the event loop.
    setImmediate(() => {
      if (!this.closed) this.onmessage?.(message);
    });
  }
}
