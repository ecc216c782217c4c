import { JetStreamApiCodes, JetStreamApiError, type JetStreamClient } from "@nats-io/jetstream";

// Writing a KV entry only if it is absent, the way the workers write results and claim side effects: a plain
// JetStream publish on the key's subject (a worker may publish there but holds no KV API rights) that expects no
// earlier message on that subject. `msgID` makes a retry of the same write after a lost acknowledgement answer
// "duplicate" instead of "exists". Where the bucket also refuses a second message per key by itself (cva_results,
// results.ts), that refusal means "exists" as well.

export type CreateOutcome = "created" | "exists";

const isWrongLastSequence = (err: unknown) =>
  err instanceof JetStreamApiError && (err.code === JetStreamApiCodes.StreamWrongLastSequence || err.code === JetStreamApiCodes.StreamWrongLastSequenceUnknown);
// nats-server answers both with the generic "stream store failed" code (10077); the text tells them apart.
const isKeyTaken = (err: unknown) => err instanceof JetStreamApiError && /maximum messages per subject exceeded/i.test(err.message);
const isBucketFull = (err: unknown) => err instanceof JetStreamApiError && /maximum (bytes|messages) exceeded/i.test(err.message);

/** The bucket is at its size bound and refuses new entries (discard new): retrying within a job's time is pointless. */
export class BucketFullError extends Error {
  constructor(subject: string, cause: unknown) {
    super(`the KV bucket ${subject.split(".")[1]} is full (${(cause as Error).message})`, { cause });
    this.name = "BucketFullError";
  }
}

/**
 * Creates `subject`'s entry unless one exists. Transient failures — no stream leader for a moment while a NATS node
 * dies, a reconnect, a time-out — are retried with back-off until `deadline` (epoch ms), then the last one is thrown;
 * a full bucket throws BucketFullError at once.
 */
export async function createIfAbsent(js: JetStreamClient, subject: string, data: Uint8Array, opts: { msgID: string; deadline: number; signal?: AbortSignal }): Promise<CreateOutcome> {
  let wait = 100;
  for (;;) {
    try {
      // A duplicate acknowledgement is an earlier attempt of this very write that landed: created all the same.
      await js.publish(subject, data, { msgID: opts.msgID, expect: { lastSubjectSequence: 0 }, timeout: 5000 });
      return "created";
    } catch (err) {
      if (isWrongLastSequence(err) || isKeyTaken(err)) return "exists";
      if (isBucketFull(err)) throw new BucketFullError(subject, err);
      if (Date.now() + wait > opts.deadline || opts.signal?.aborted) throw err;
      await new Promise((r) => setTimeout(r, wait));
      wait = Math.min(2000, wait * 2);
    }
  }
}
