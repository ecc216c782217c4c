import { inboxPrefixOf } from "./auth.ts";
import {
  ARTIFACT_BUCKET, CUSTOMERS_BUCKET, KEYS_BUCKET, kvStream, LOCATIONS, objectStream, QUOTA_BUCKET, REPORTS_BUCKET, RESULTS_BUCKET, WORKSPACES_BUCKET,
  RESULTS_STREAM, SIDE_EFFECTS_BUCKET, SIDE_EFFECTS_STREAM, STREAM, UPLOADS_BUCKET, UPLOADS_STREAM,
} from "./names.ts";

// Who may publish and subscribe to what on NATS. One user per service, each allowed exactly the subjects its code
// uses (dispatch/, artifacts/, the KV stores), so a compromised process — the tag scanner runs hostile creatives in
// Chromium — cannot read another customer's reports or keys, forge jobs of another kind, or read other replies.
// Rendered into nats-server's `authorization` block by nats-config.ts (npm start, tests) and deploy/nats-users.conf.

export interface NatsPermissions {
  publish: string[];
  subscribe: string[];
}

export const NATS_USERS = ["edge", "auth", "report-store", "tag-scanner", "zip-analyzer", "vast-analyzer", "media-prober", "admin"] as const;
export type NatsUser = (typeof NATS_USERS)[number];

type Kind = "tag" | "zip" | "vast" | "media" | "video" | "image" | "audio" | "simid";

// NATS wildcards match whole tokens only, so consumer names (w_<kind>_<location>) are listed per location.
const consumers = (kind: Kind) => LOCATIONS.map((l) => `w_${kind}_${l}`);

// Every JetStream client asks for the account info first (jetstreamManager): limits and usage only.
const JS_ACCOUNT = "$JS.API.INFO";

// Who submits which kinds of jobs: the edge every kind, the zip analyzer its renders (tag jobs), the VAST analyzer its
// media files and its SIMID creatives (run by the tag scanner's SIMID player harness). A worker stores and announces results only for these requesters.
const SUBMITS: Partial<Record<NatsUser, Kind[]>> = { edge: ["tag", "zip", "vast", "media", "video", "image", "audio"], "zip-analyzer": ["tag"], "vast-analyzer": ["media", "simid"] };
const requestersOf = (kind: Kind) => (Object.keys(SUBMITS) as NatsUser[]).filter((u) => SUBMITS[u]!.includes(kind));
// The one requester that may change the results bucket's configuration (dispatch/results.ts: its first-writer-wins
// settings); the others, which parse hostile zips and XML, may create it but not loosen it.
const RESULTS_OWNER: NatsUser = "edge";

// Works jobs of one kind from the shared durable consumers w_<kind>_<location>: reads the stream's and its consumers'
// info, creates its consumer only with its own filter (the filter is part of the create subject since NATS 2.9;
// the legacy DURABLE.CREATE form, which takes any filter, is not allowed), pulls, acks/extends/terminates, announces
// itself, stores results of its own kind in cva_results (a plain JetStream publish on the entry's subject
// `<kind>.<requester>.<job_id>`, only for the requesters of its kind: no KV API, so it can neither read nor list
// results) and notifies those requesters. It may not create the stream or the results bucket: requesters do, and a
// worker waits for them.
function worker(kind: Kind): NatsPermissions {
  return {
    publish: [
      `$JS.API.STREAM.INFO.${STREAM}`,
      ...consumers(kind).flatMap((c, i) => [
        `$JS.API.CONSUMER.INFO.${STREAM}.${c}`,
        `$JS.API.CONSUMER.CREATE.${STREAM}.${c}.scan.job.${kind}.${LOCATIONS[i]}`,
        `$JS.API.CONSUMER.MSG.NEXT.${STREAM}.${c}`,
        `$JS.ACK.${STREAM}.${c}.>`,
      ]),
      `scan.worker.${kind}.*`,
      // Results: the durable entry <kind>.<requester>.<job_id>, then the notification scan.result.<requester>.<job_id>.
      ...requestersOf(kind).flatMap((r) => [`$KV.${RESULTS_BUCKET}.${kind}.${r}.*`, `scan.result.${r}.*`]),
    ],
    subscribe: [],
  };
}

// Submits jobs of some kinds: publishes them (a JetStream publish), creates the stream, the results bucket and the
// kinds' consumers if missing (and scales the stream and bucket up to the cluster's replicas), reads their backlog
// (num_pending) for "no worker resources", deletes a job it gave up on, listens to heartbeats, to its own result
// notifications only and to the max-deliveries advisory, and reads its own stored results (direct gets by subject,
// `<kind>.<user>.<job_id>`: another requester's are refused). Only RESULTS_OWNER updates the results bucket.
function requester(user: NatsUser, kinds: Kind[]): NatsPermissions {
  return {
    publish: [
      `$JS.API.STREAM.INFO.${STREAM}`,
      `$JS.API.STREAM.CREATE.${STREAM}`,
      `$JS.API.STREAM.UPDATE.${STREAM}`,
      `$JS.API.STREAM.MSG.DELETE.${STREAM}`,
      `$JS.API.STREAM.INFO.${RESULTS_STREAM}`,
      `$JS.API.STREAM.CREATE.${RESULTS_STREAM}`,
      ...(user === RESULTS_OWNER ? [`$JS.API.STREAM.UPDATE.${RESULTS_STREAM}`] : []),
      ...kinds.flatMap((k) => [
        `scan.job.${k}.*`,
        `$JS.API.DIRECT.GET.${RESULTS_STREAM}.$KV.${RESULTS_BUCKET}.${k}.${user}.*`,
        ...consumers(k).flatMap((c, i) => [`$JS.API.CONSUMER.INFO.${STREAM}.${c}`, `$JS.API.CONSUMER.CREATE.${STREAM}.${c}.scan.job.${k}.${LOCATIONS[i]}`]),
      ]),
    ],
    subscribe: ["scan.worker.>", `scan.result.${user}.>`, `$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.${STREAM}.*`],
  };
}

// Owns a JetStream-backed bucket (KV `KV_<b>` on `$KV.<b>.>`, Object Store `OBJ_<b>` on `$O.<b>.>`): creates it,
// re-applies retention (update), reads (direct and stored-message gets), writes, lists and watches (ordered
// consumers with flow control), deletes.
function bucketOwner(stream: string, subjects: string): NatsPermissions {
  return {
    publish: [
      `$JS.API.STREAM.INFO.${stream}`,
      `$JS.API.STREAM.CREATE.${stream}`,
      `$JS.API.STREAM.UPDATE.${stream}`,
      `$JS.API.STREAM.PURGE.${stream}`,
      `$JS.API.STREAM.MSG.GET.${stream}`,
      `$JS.API.STREAM.MSG.DELETE.${stream}`,
      `$JS.API.DIRECT.GET.${stream}`,
      `$JS.API.DIRECT.GET.${stream}.>`,
      `$JS.API.CONSUMER.CREATE.${stream}`,
      `$JS.API.CONSUMER.CREATE.${stream}.>`,
      `$JS.API.CONSUMER.INFO.${stream}.*`,
      `$JS.API.CONSUMER.DELETE.${stream}.*`,
      `$JS.API.CONSUMER.MSG.NEXT.${stream}.*`,
      `$JS.FC.${stream}.>`,
      subjects,
    ],
    subscribe: [],
  };
}
const kv = (bucket: string) => bucketOwner(kvStream(bucket), `$KV.${bucket}.>`);
const objectStore = (bucket: string) => bucketOwner(objectStream(bucket), `$O.${bucket}.>`);

// Adds images to the artifact bucket without being able to read it: chunks and the object's metadata are plain
// JetStream publishes (artifacts/writer.ts), never a get, a consumer or a listing.
const artifactWriter = (): NatsPermissions => ({
  publish: [`$O.${ARTIFACT_BUCKET}.C.*`, `$O.${ARTIFACT_BUCKET}.M.*`],
  subscribe: [],
});

// Claims a side effect of a job once (dispatch/side-effect-guard.ts): creates the guard bucket if missing and writes
// `<job_id>.<effect>` entries by create-if-absent — no reads, lists or deletes.
const sideEffectGuard = (effects: string[]): NatsPermissions => ({
  publish: [
    `$JS.API.STREAM.INFO.${SIDE_EFFECTS_STREAM}`,
    `$JS.API.STREAM.CREATE.${SIDE_EFFECTS_STREAM}`,
    `$JS.API.STREAM.UPDATE.${SIDE_EFFECTS_STREAM}`,
    ...effects.map((e) => `$KV.${SIDE_EFFECTS_BUCKET}.*.${e}`),
  ],
  subscribe: [],
});

// Reads the uploads it is handed a reference to (artifacts/uploads.ts): one object's metadata by a direct get on that
// object's own subject, its chunks through an ephemeral consumer whose filter (part of the create subject) is a chunk
// subject. No listing (a consumer on the metadata subjects), no stored-message gets by sequence, no writes or deletes.
const uploadReader = (): NatsPermissions => ({
  publish: [
    `$JS.API.DIRECT.GET.${UPLOADS_STREAM}.$O.${UPLOADS_BUCKET}.M.*`,
    `$JS.API.CONSUMER.CREATE.${UPLOADS_STREAM}.*.$O.${UPLOADS_BUCKET}.C.*`,
    `$JS.API.CONSUMER.INFO.${UPLOADS_STREAM}.*`,
    `$JS.API.CONSUMER.MSG.NEXT.${UPLOADS_STREAM}.*`,
    `$JS.API.CONSUMER.DELETE.${UPLOADS_STREAM}.*`,
  ],
  subscribe: [],
});

const AUTH_BUCKETS = [KEYS_BUCKET, CUSTOMERS_BUCKET, QUOTA_BUCKET];

function merge(user: NatsUser, ...parts: NatsPermissions[]): NatsPermissions {
  const uniq = (xs: string[]) => [...new Set(xs)];
  return {
    publish: uniq([JS_ACCOUNT, ...parts.flatMap((p) => p.publish)]),
    subscribe: uniq([`${inboxPrefixOf(user)}.>`, ...parts.flatMap((p) => p.subscribe)]),
  };
}

export function natsPermissions(user: NatsUser): NatsPermissions {
  switch (user) {
    case "edge":
      // The raw-file scans' uploads are the edge's: it streams them in and deletes them after their scan.
      return merge(user, requester(user, SUBMITS.edge!), objectStore(UPLOADS_BUCKET));
    case "auth":
      return merge(user, ...AUTH_BUCKETS.map(kv));
    case "report-store":
      return merge(user, kv(REPORTS_BUCKET), kv(WORKSPACES_BUCKET), objectStore(ARTIFACT_BUCKET));
    case "tag-scanner":
      return merge(user, worker("tag"), worker("simid"), artifactWriter());
    case "zip-analyzer":
      return merge(user, worker("zip"), requester(user, SUBMITS["zip-analyzer"]!));
    case "vast-analyzer":
      return merge(user, worker("vast"), requester(user, SUBMITS["vast-analyzer"]!), sideEffectGuard(["impressions"]));
    case "media-prober":
      return merge(user, worker("media"), worker("video"), worker("image"), worker("audio"), uploadReader(), artifactWriter());
    // The operator's keys CLI and `npm start`'s development key: the API-key buckets, nothing else.
    case "admin":
      return merge(user, ...AUTH_BUCKETS.map(kv));
  }
}

// The environment variable holding a user's password in .data/secrets.env and in compose: NATS_PASSWORD_TAG_SCANNER.
export const natsPasswordVar = (user: NatsUser) => `NATS_PASSWORD_${user.toUpperCase().replace(/-/g, "_")}`;
