// Closed-loop load: `clients` callers, each starting its next request when its last one answered, until `total`
// requests have been answered. Throughput is answered-OK per minute of wall clock; latency is per answered request.
import { postJson } from "../test/harness/stack.ts";

export type Attempt<T> = { ok: true; value: T } | { ok: false; refused: boolean; why: string };

export interface LoadResult<T> {
  times: number[];
  values: T[];
  failures: string[];
  /** "no worker resources" answers (HTTP 400 + Retry-After): the queue was full. */
  refused: number;
  perMinute: number;
}

/** After a refusal a client waits this long before trying again (the edge says Retry-After: 5, which would idle it). */
const REFUSED_PAUSE_MS = 1000;

export async function runClients<T>(clients: number, total: number, once: () => Promise<Attempt<T>>): Promise<LoadResult<T>> {
  const out: LoadResult<T> = { times: [], values: [], failures: [], refused: 0, perMinute: 0 };
  // A client claims one of the `total` requests before sending it; a refused request gives its claim back.
  let claimed = 0;
  let attempts = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (claimed < total && attempts < total * 4) {
        claimed++;
        attempts++;
        const t = performance.now();
        const a = await once();
        if (a.ok) {
          out.times.push(performance.now() - t);
          out.values.push(a.value);
        } else if (a.refused) {
          claimed--;
          out.refused++;
          await new Promise((r) => setTimeout(r, REFUSED_PAUSE_MS));
        } else {
          out.failures.push(a.why);
        }
      }
    }),
  );
  out.perMinute = (out.times.length / ((performance.now() - started) / 1000)) * 60;
  return out;
}

/** One scan through the edge; the JSON report is the value. */
export function scanAttempt(baseUrl: string, path: string, body: object, key: string): () => Promise<Attempt<any>> {
  return async () => {
    const r = await postJson(`${baseUrl}${path}`, body, key).catch((e: Error) => ({ status: 0, json: undefined, headers: new Headers(), text: e.message }));
    if (r.status === 200) return { ok: true, value: r.json };
    const refused = r.status === 400 && r.headers.get("retry-after") !== null;
    return { ok: false, refused, why: `${r.status} ${r.json?.message ?? r.text.slice(0, 120)}` };
  };
}
