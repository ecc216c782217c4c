import { JetStreamApiCodes, JetStreamApiError, type JetStreamClient } from "@nats-io/jetstream";

// Writing a KV entry only if it is absent, the way the workers write results and claim side effects: a plain
// JetStream publish on the key's subject (a worker may publish there but holds no KV API rights) that expects no
// earlier message on that subject. `msgID` makes a retry of the same write after a lost acknowledgement answer
// "duplicate" instead of "exists".

export type CreateOutcome = "created" | "exists";

const isWrongLastSequence = (err: unknown) =>
  err instanceof JetStreamApiError && (err.code === JetStreamApiCodes.StreamWrongLastSequence || err.code === JetStreamApiCodes.StreamWrongLastSequenceUnknown);

/**
 * Creates `subject`'s entry unless one exists. Transient failures — no stream leader for a moment while a NATS node
 * dies, a reconnect, a time-out — are retried with back-off until `deadline` (epoch ms), then the last one is thrown.
 */
export async function createIfAbsent(js: JetStreamClient, subject: string, data: Uint8Array, opts: { msgID: string; deadline: number; signal?: AbortSignal }): Promise<CreateOutcome> {
  let wait = 100;
  for (;;) {
    try {
      // A duplicate acknowledgement is an earlier attempt of this very write that landed: created all the same.
      await js.publish(subject, data, { msgID: opts.msgID, expect: { lastSubjectSequence: 0 }, timeout: 5000 });
      return "created";
    } catch (err) {
      if (isWrongLastSequence(err)) return "exists";
      if (Date.now() + wait > opts.deadline || opts.signal?.aborted) throw err;
      await new Promise((r) => setTimeout(r, wait));
      wait = Math.min(2000, wait * 2);
    }
  }
}
