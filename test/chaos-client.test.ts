// The chaos run's careful client (scripts/lib/chaos/client.ts) against a fake edge: what ends a request. A request the
// edge keeps answering with a retryable documented error ends with that error when its budget cannot wait out another
// attempt — it is not cut mid-attempt and called lost — and an edge that answers nothing within the longest it may
// take is counted as unanswered, and the request lost.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { runRequest } from "../scripts/lib/chaos/client.ts";

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r) ?? r(undefined));
  server = undefined;
});

async function edge(answer: (res: import("node:http").ServerResponse) => void): Promise<string> {
  server = createServer((req, res) => {
    req.resume();
    req.on("end", () => answer(res));
  });
  await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const req = { path: "/v3/scanTag", body: { data: "PGRpdj48L2Rpdj4=" } };

describe("chaos client", () => {
  it("ends with the edge's documented error when its budget cannot wait out another attempt", async () => {
    let attempts = 0;
    const base = await edge((res) => {
      attempts++;
      setTimeout(() => {
        res.writeHead(503, { "content-type": "application/json", "retry-after": "2" });
        res.end(JSON.stringify({ error_type: "processing_error", message: "the scan did not finish in time" }));
      }, 50);
    });
    const o = await runRequest(base, "key", 1, "tag", req, { idempotencyKey: "k-1", budgetMs: 8_000, attemptMs: 5_000 });
    expect(o.end).toBe("error");
    expect(o.errorType).toBe("processing_error");
    expect(o.dropped + o.unanswered).toBe(0);
    expect(o.attempts).toBe(attempts);
    expect(o.ms).toBeLessThan(8_000);
  }, 20_000);

  it("counts an attempt the edge leaves unanswered past its longest answer, and a request without any answer is lost", async () => {
    const base = await edge(() => {});
    const o = await runRequest(base, "key", 2, "zip", req, { idempotencyKey: "k-2", budgetMs: 3_500, attemptMs: 1_000 });
    expect(o.end).toBe("lost");
    expect(o.unanswered).toBeGreaterThanOrEqual(1);
    expect(o.dropped).toBe(0);
  }, 20_000);
});
