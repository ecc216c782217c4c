// The CDP pipe reader (issue 20, hole 8) on bytes as Chromium writes them: what reaches puppeteer, and what never
// becomes a string at all.
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { BoundedPipeTransport, type PipeLimits } from "../src/cdp-transport.ts";

const SESSION = "0123456789ABCDEF0123456789ABCDEF";

/** A transport fed by hand; `messages()` waits for what was delivered (delivery is one message per macrotask). */
function pipe(limits: Partial<PipeLimits> = {}) {
  const read = new PassThrough();
  const write = new PassThrough();
  const t = new BoundedPipeTransport(write, read, limits);
  const got: string[] = [];
  t.onmessage = (m) => got.push(m);
  return {
    t,
    /** Writes `messages`, each followed by the separator, in chunks of `chunk` bytes (boundaries anywhere). */
    feed(messages: Array<string | Buffer>, chunk = 7_777) {
      const all = Buffer.concat(messages.flatMap((m) => [Buffer.isBuffer(m) ? m : Buffer.from(m), Buffer.from([0])]));
      for (let i = 0; i < all.length; i += chunk) read.write(all.subarray(i, i + chunk));
    },
    async messages(n: number): Promise<string[]> {
      for (let i = 0; i < 200 && got.length < n; i++) await new Promise((r) => setImmediate(r));
      return got;
    },
  };
}

const consoleEvent = (type: string, text: string, session = SESSION) =>
  JSON.stringify({
    method: "Runtime.consoleAPICalled",
    params: { type, args: [{ type: "string", value: text }], executionContextId: 3, timestamp: 1, stackTrace: { callFrames: [] } },
    sessionId: session,
  });

describe("BoundedPipeTransport", () => {
  it("passes ordinary messages through unchanged, whatever the chunk boundaries", async () => {
    const msgs = [
      JSON.stringify({ id: 1, result: { product: "Chrome/156" } }),
      consoleEvent("error", "boom ✓ \u00e9\ud83d\ude00"),
      JSON.stringify({ method: "Page.loadEventFired", params: { timestamp: 2 }, sessionId: SESSION }),
    ];
    for (const chunk of [1, 3, 64, 100_000]) {
      const p = pipe();
      p.feed(msgs, chunk);
      expect(await p.messages(3)).toEqual(msgs);
    }
  });

  it("a console message over the limit becomes a small stand-in with the start of its text, never a long string", async () => {
    const p = pipe();
    const big = consoleEvent("error", `BIG "quoted" ${"x".repeat(5 * 1024 * 1024)}`);
    p.feed([big, consoleEvent("error", "after")], 65_536);
    const [stand, after] = await p.messages(2);
    expect(stand!.length).toBeLessThan(2_000);
    const e = JSON.parse(stand!);
    expect(e).toMatchObject({ method: "Runtime.consoleAPICalled", sessionId: SESSION, params: { type: "error" } });
    expect(e.params.args[0].value).toMatch(/^BIG "quoted" x{200,}… \[5\.0 MB not read\]$/);
    expect(JSON.parse(after!).params.args[0].value).toBe("after");
    expect(p.t.stats).toMatchObject({ cut: 1, dropped: 0 });
  });

  it("an uncaught exception, a log entry and a dialog over the limit get their stand-ins; the dialog keeps its type", async () => {
    const p = pipe({ eventTextMaxBytes: 1024 });
    const huge = "y".repeat(100_000);
    p.feed([
      JSON.stringify({ method: "Runtime.exceptionThrown", params: { timestamp: 1, exceptionDetails: { exceptionId: 1, text: "Uncaught", lineNumber: 0, columnNumber: 0, exception: { type: "object", description: `Error: ${huge}` } } }, sessionId: SESSION }),
      JSON.stringify({ method: "Log.entryAdded", params: { entry: { source: "network", level: "error", text: `Failed ${huge}`, timestamp: 1 } }, sessionId: SESSION }),
      JSON.stringify({ method: "Page.javascriptDialogOpening", params: { url: "https://creative.cva.invalid/", frameId: "F1", message: huge, type: "confirm", hasBrowserHandler: false, defaultPrompt: "" }, sessionId: SESSION }),
    ]);
    const [exception, log, dialog] = (await p.messages(3)).map((m) => JSON.parse(m));
    expect(exception.params.exceptionDetails.text).toMatch(/^Uncaught \(an exception message \[98 KB not read\]\)$/);
    expect(log.params.entry).toMatchObject({ source: "network", level: "error" });
    expect(log.params.entry.text).toMatch(/^Failed y+… \[98 KB not read\]$/);
    expect(dialog).toMatchObject({ sessionId: SESSION, params: { type: "confirm", frameId: "F1" } });
    expect(dialog.params.message).toMatch(/^y+… \[98 KB not read\]$/);
  });

  it("console events past the budget of their session and kind are dropped; other kinds and sessions keep theirs", async () => {
    const p = pipe({ consoleBudget: 10 });
    const other = "FEDCBA9876543210FEDCBA9876543210";
    p.feed([
      ...Array.from({ length: 30 }, (_, i) => consoleEvent("log", `log ${i}`)),
      ...Array.from({ length: 3 }, (_, i) => consoleEvent("error", `error ${i}`)),
      ...Array.from({ length: 12 }, (_, i) => consoleEvent("log", `other session ${i}`, other)),
      JSON.stringify({ method: "Target.detachedFromTarget", params: { sessionId: SESSION, targetId: "T" } }),
      consoleEvent("log", "a new session of the same id starts afresh"),
    ]);
    const got = await p.messages(10 + 3 + 10 + 2);
    const texts = got.filter((m) => m.includes("consoleAPICalled")).map((m) => JSON.parse(m).params.args[0].value as string);
    expect(texts.filter((t) => t.startsWith("log "))).toHaveLength(10);
    expect(texts.filter((t) => t.startsWith("error "))).toEqual(["error 0", "error 1", "error 2"]);
    expect(texts.filter((t) => t.startsWith("other session"))).toHaveLength(10);
    expect(texts).toContain("a new session of the same id starts afresh");
    expect(p.t.stats.dropped).toBe(20 + 2);
  });

  it("an oversized response answers its command with an error; an oversized other event is dropped", async () => {
    const p = pipe({ responseMaxBytes: 4096, otherEventMaxBytes: 4096 });
    p.feed([
      JSON.stringify({ id: 42, result: { data: "z".repeat(50_000) }, sessionId: SESSION }),
      JSON.stringify({ method: "Network.requestWillBeSent", params: { request: { url: `https://a.example/${"q".repeat(50_000)}` } }, sessionId: SESSION }),
      JSON.stringify({ id: 43, result: {} }),
    ]);
    const got = (await p.messages(2)).map((m) => JSON.parse(m));
    expect(got).toEqual([
      { id: 42, error: { code: -32000, message: "response of 49 KB not read (over 4 KB)" }, sessionId: SESSION },
      { id: 43, result: {} },
    ]);
    expect(p.t.stats).toMatchObject({ refused: 1, dropped: 1 });
  });

  it("writes commands with the separator and reports the pipe's end", async () => {
    const read = new PassThrough();
    const write = new PassThrough();
    const t = new BoundedPipeTransport(write, read);
    const written: Buffer[] = [];
    write.on("data", (d: Buffer) => written.push(d));
    t.send('{"id":1,"method":"Browser.getVersion"}');
    const closed = new Promise<void>((resolve) => (t.onclose = resolve));
    read.destroy();
    await closed;
    expect(Buffer.concat(written).toString()).toBe('{"id":1,"method":"Browser.getVersion"}\0');
  });
});

// A creative sizes its URLs: a data: URL of 20 MB went whole through Network.requestWillBeSent, responseReceived, … —
// 294 MB of events parsed for ten fetch() calls of one scan. Those events keep their fields, their long strings cut.
describe("BoundedPipeTransport: events whose URLs a creative sized", () => {
  const request = (url: string, extra: Record<string, unknown> = {}) =>
    JSON.stringify({
      method: "Network.requestWillBeSent",
      params: { requestId: "R1", loaderId: "L1", documentURL: "https://creative.cva.invalid/", request: { url, method: "GET", headers: { "x-h": "v" } }, timestamp: 5, type: "Fetch", ...extra },
      sessionId: SESSION,
    });

  it("shortens every string over the limit of a large network event, keeping the rest of the event exact", async () => {
    const p = pipe({ compactAboveBytes: 64 * 1024, maxStringBytes: 1024 });
    const dataUrl = `data:text/plain,${"a".repeat(5 * 1024 * 1024)}`;
    p.feed([request(dataUrl), request("https://small.example/")], 65_536);
    const [big, small] = (await p.messages(2)).map((m) => { expect(m.length).toBeLessThan(8 * 1024); return JSON.parse(m); });
    expect(big).toMatchObject({ method: "Network.requestWillBeSent", sessionId: SESSION, params: { requestId: "R1", timestamp: 5, type: "Fetch", documentURL: "https://creative.cva.invalid/", request: { method: "GET", headers: { "x-h": "v" } } } });
    expect(big.params.request.url).toMatch(/^data:text\/plain,a{1000,}… \[5\.0 MB not read\]$/);
    expect(small.params.request.url).toBe("https://small.example/");
    expect(p.t.stats.compacted).toBe(1);
  });

  it("never cuts an escape or a character in half, wherever the limit lands", async () => {
    // JSON-encoded, each unit is 13 bytes: \\ \" é (2 bytes of UTF-8) U+2028 (3) \u0001 (an escape of 6).
    const tricky = `https://x.example/?q=${'\\"\u00e9\u2028\u0001'.repeat(40_000)}`;
    for (let max = 1024; max < 1024 + 13; max++) {
      const p = pipe({ compactAboveBytes: 64 * 1024, maxStringBytes: max });
      p.feed([request(tricky)], 65_536);
      const [m] = await p.messages(1);
      const url = JSON.parse(m!).params.request.url as string;
      expect(url, String(max)).toMatch(/^https:\/\/x\.example\/\?q=(\\"é\u2028\u0001)*(\\("(é(\u2028)?)?)?)?… \[\d+ KB not read\]$/);
    }
  });

  it("cuts at every chunk boundary the same way", async () => {
    const msg = request(`data:,${"\\".repeat(3000)}${"b".repeat(3000)}`);
    let first: string | undefined;
    for (const chunk of [1, 5, 333, 4096]) {
      const p = pipe({ compactAboveBytes: 1024, maxStringBytes: 101 });
      p.feed([msg], chunk);
      const [m] = await p.messages(1);
      const url = JSON.parse(m!).params.request.url as string;
      expect(url).toMatch(/^data:,(\\)+… \[\d+ KB not read\]$/);
      first ??= m;
      expect(m).toBe(first);
    }
  });
});

// Count budgets alone let 2 000 console events of 255 KB each through per scan: the bytes of large text events are
// budgeted per browser context too (a scan's failed fetches of 200 KB URLs made 48.7 MB of Log.entryAdded).
describe("BoundedPipeTransport: a scan's text bytes", () => {
  const attached = (session: string, context: string) =>
    JSON.stringify({ method: "Target.attachedToTarget", params: { sessionId: session, targetInfo: { targetId: "T", type: "worker", title: `"browserContextId":"CTX2"`, url: "", attached: true, canAccessOpener: false, browserContextId: context }, waitingForDebugger: false } });
  const OTHER = "FEDCBA9876543210FEDCBA9876543210";

  it("past the context's bytes, each large text event gets its stand-in; small ones and other contexts stay whole", async () => {
    const p = pipe({ contextTextBytes: 1024 * 1024 });
    const line = (i: number, session = SESSION) => consoleEvent("error", `L${i} ${"z".repeat(100 * 1024)}`, session);
    p.feed([attached(SESSION, "CTX1"), attached(OTHER, "CTX2"), ...Array.from({ length: 20 }, (_, i) => line(i)), consoleEvent("error", "small"), line(99, OTHER)]);
    const got = (await p.messages(24)).slice(2).map((m) => JSON.parse(m).params.args[0].value as string);
    expect(got).toHaveLength(22);
    const whole = got.slice(0, 20).filter((t) => !t.includes("not read"));
    // 1 MiB of 100 KiB messages: 10 whole (each ~100.2 KiB with its JSON), the rest cut to their start.
    expect(whole.length).toBe(10);
    for (const t of got.slice(10, 20)) expect(t).toMatch(/^L\d+ z{200,}… \[100 KB not read\]$/);
    expect(got[20]).toBe("small");
    // The other context's budget is its own — and a title claiming its context id did not move the first session there.
    expect(got[21]!.length).toBeGreaterThan(100 * 1024);
  });
});
