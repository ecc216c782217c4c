// Every NATS stream, bucket and object store the stack uses, and the worker locations that name its consumers. The
// ground floor of the platform (it imports nothing): the permissions (nats/permissions.ts), dispatch/, artifacts/
// and the auth and report-store services all read the names here, so none of them imports a higher module — or
// another service — to learn a name, and renaming one is one line.

/** The JetStream work queue of scan jobs (`scan.job.<kind>.<location>`, dispatch/subjects.ts). */
export const STREAM = "SCANS";
/** Worker locations (`SERVER_LOCATION`); each names a consumer per kind, `w_<kind>_<location>`. */
export const LOCATIONS = ["usa", "nld"] as const;

/** KV bucket: every job's result, stored by its worker before the ack (dispatch/results.ts). */
export const RESULTS_BUCKET = "cva_results";
/** KV bucket: side effects on third parties claimed once per job (dispatch/side-effect-guard.ts). */
export const SIDE_EFFECTS_BUCKET = "cva_side_effects";
/** Object store: report images (artifacts/). */
export const ARTIFACT_BUCKET = "cva_artifacts";
/** Object store: uploaded media files handed to the scanners by reference (artifacts/uploads.ts). */
export const UPLOADS_BUCKET = "cva_uploads";
/** KV buckets of the auth service: API keys, customers, quota counters / reservations / idempotency keys. */
export const KEYS_BUCKET = "cva_keys";
export const CUSTOMERS_BUCKET = "cva_customers";
export const QUOTA_BUCKET = "cva_quota";
/** KV bucket of the report store: stored reports and their indexes. */
export const REPORTS_BUCKET = "cva_reports";
/** KV bucket of the report store: each workspace's stored settings (allowed_domains), kept until replaced. */
export const WORKSPACES_BUCKET = "cva_workspaces";

/** The JetStream stream behind a KV bucket, resp. an object store (the layout the NATS clients create). */
export const kvStream = (bucket: string) => `KV_${bucket}`;
export const objectStream = (bucket: string) => `OBJ_${bucket}`;

export const RESULTS_STREAM = kvStream(RESULTS_BUCKET);
export const SIDE_EFFECTS_STREAM = kvStream(SIDE_EFFECTS_BUCKET);
export const UPLOADS_STREAM = objectStream(UPLOADS_BUCKET);
