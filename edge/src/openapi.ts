import type { EdgeLimits } from "./ports.ts";
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, SCAN_ENDPOINTS } from "./constants.ts";
import { IDEMPOTENCY_KEY_MAX } from "./validation/idempotency-key.ts";
import { MAX_ALLOWED_DOMAINS } from "./validation/request.ts";
import { multipartRequestSchema, requestSchemas } from "./validation/schemas.ts";
import { VIEW_SCHEMAS } from "./views/index.ts";

/** The components/schemas name of each report view (the raw-file ones too: their endpoints are listed in constants.ts). */
export const REPORT_SCHEMA_NAMES = {
  tag_v3: "TagReportV3", tag_v2: "TagReportV2", zip_v2: "ZipReportV2", zip_v3: "ZipReportV3", vast_v3: "VastReportV3",
  video_v3: "VideoReportV3", image_v3: "ImageReportV3", audio_v3: "AudioReportV3",
} as const;

// OpenAPI 3.1 for every JSON endpoint, built from the same schemas the views serialize with and the limits the
// validator enforces, so the document cannot drift from the behaviour.
export function buildOpenApi(opts: { publicBaseUrl: string; limits: EdgeLimits; version?: string }): Record<string, unknown> {
  const { limits } = opts;
  const reqSchemas = requestSchemas(limits);
  const errorRef = { $ref: "#/components/schemas/Error" };
  const err = (description: string) => ({ description, content: { "application/json": { schema: errorRef } } });
  const processing = {
    description:
      "processing_error: no worker resources free, too many of the customer's scans in flight, or the scan could not be completed (not charged)",
    headers: { "Retry-After": { description: "seconds to wait before retrying", schema: { type: "integer" } } },
    content: { "application/json": { schema: errorRef } },
  };
  const security = [{ ApiKey: [] }];
  const mb = (n: number) => `${(n / (1024 * 1024)).toFixed(n % (1024 * 1024) === 0 ? 0 : 2)} MB`;
  const limitsText =
    `Limits: JSON body ≤ ${mb(limits.maxBodyBytes)}; ad tag ≤ ${mb(limits.maxTagBytes)} decoded; zip ≤ ${mb(limits.maxZipBytes)} compressed ` +
    `(≤ 50 MB and ≤ 1 000 entries uncompressed); VAST URL ≤ ${limits.maxVastUrlBytes} bytes; name ≤ ${limits.maxNameLength} characters.`;

  const idempotencyKey = {
    name: "Idempotency-Key",
    in: "header",
    required: false,
    description:
      "Makes retries safe. A retry with the same key and the same request (same endpoint, same decoded data and options — " +
      "JSON layout and unknown fields do not matter) within 24 h of the first answers the first scan's report, byte for byte " +
      "(same job_id, response header Idempotent-Replayed: true), and is charged once. While the first is still running, the " +
      "retry waits for it (at most the scan time-out, then processing_error with Retry-After). A scan that failed " +
      "(processing_error, not charged) does not keep its key: a retry runs again. The same key with a different request is " +
      "a payload_error. Keys are per customer. Over gRPC: the idempotency-key metadata.",
    schema: { type: "string", minLength: 1, maxLength: IDEMPOTENCY_KEY_MAX, pattern: "^[\\x20-\\x7E]+$" },
  };
  const replayedHeader = {
    "Idempotent-Replayed": { description: "true when this is the stored answer of an earlier request with the same Idempotency-Key", schema: { type: "string", enum: ["true"] } },
  };
  const paths: Record<string, unknown> = {};
  for (const ep of SCAN_ENDPOINTS) {
    const schemaName = REPORT_SCHEMA_NAMES[ep.kind];
    const operationId = {
      tag_v3: "scanTagV3", tag_v2: "scanTagV2", zip_v2: "scanZipV2", zip_v3: "scanZipV3", vast_v3: "scanVastV3",
      video_v3: "scanVideoV3", image_v3: "scanImageV3", audio_v3: "scanAudioV3",
    }[ep.kind];
    const file = ep.kind === "video_v3" || ep.kind === "image_v3" || ep.kind === "audio_v3" ? ep.kind : undefined;
    paths[ep.path] = {
      post: {
        operationId,
        summary: ep.summary,
        description: `${limitsText} Checks run in this order: endpoint, API key, payload, quota, scan.${ep.notes ? ` ${ep.notes}` : ""}`,
        security,
        parameters: [idempotencyKey],
        requestBody: {
          required: true,
          content: {
            "application/json": { schema: reqSchemas[ep.kind] },
            ...(file ? { "multipart/form-data": { schema: multipartRequestSchema(file, limits) } } : {}),
          },
        },
        responses: {
          "200": {
            description: "the scan report",
            headers: replayedHeader,
            content: { "application/json": { schema: { $ref: `#/components/schemas/${schemaName}` } } },
          },
          "400": {
            description:
              "payload_error (bad body, field or Idempotency-Key, or the key already used for another request; the message names it) " +
              "or processing_error (Retry-After set)",
            headers: processing.headers,
            content: processing.content,
          },
          "401": err("authentication_error: X-ApiKey missing, empty, unknown or revoked"),
          "404": err("invalid_endpoint"),
          "429": err("quota_error: the monthly quota is used up"),
        },
      },
    };
  }
  paths["/v3/reports/{job_id}"] = {
    get: {
      operationId: "getReport",
      summary: "A stored report, exactly as first returned (only to the customer who ran the scan)",
      security,
      parameters: [{ name: "job_id", in: "path", required: true, schema: { type: "string" } }],
      responses: {
        "200": {
          description: "the report (the schema of its scan endpoint)",
          content: {
            "application/json": {
              schema: { oneOf: Object.values(REPORT_SCHEMA_NAMES).map((n) => ({ $ref: `#/components/schemas/${n}` })) },
            },
          },
        },
        "400": processing,
        "401": err("authentication_error"),
        "404": err("invalid_endpoint: no report with this id for this customer"),
      },
    },
  };
  paths["/v3/workspaces/{workspace_id}/reports"] = {
    get: {
      operationId: "listWorkspaceReports",
      summary: "The customer's reports stored with this workspace_id, newest first",
      security,
      parameters: [
        { name: "workspace_id", in: "path", required: true, schema: { type: "integer", minimum: 0 } },
        { name: "page_size", in: "query", schema: { type: "integer", minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE } },
        { name: "page_token", in: "query", schema: { type: "string" }, description: "next_page_token of the previous page" },
      ],
      responses: {
        "200": { description: "one page", content: { "application/json": { schema: { $ref: "#/components/schemas/ReportList" } } } },
        "400": { description: "payload_error (bad workspace_id, page_size or page_token) or processing_error", content: processing.content },
        "401": err("authentication_error"),
        "404": err("invalid_endpoint"),
      },
    },
  };
  const workspaceSettings = {
    type: "object",
    required: ["workspace_id", "allowed_domains", "updated_at"],
    properties: {
      workspace_id: { type: "integer", minimum: 1 },
      allowed_domains: {
        type: "array", maxItems: MAX_ALLOWED_DOMAINS, items: { type: "string" },
        description: "the workspace's approved vendor domains (lower case, a leading *. dropped: subdomains are always in); every v3 tag and zip scan of the workspace whose request gives no allowed_domains uses them (privacy.allowed_domains, approved_vendors_only)",
      },
      updated_at: { type: ["string", "null"], format: "date-time", description: "when they were last set; null when none are stored" },
    },
  };
  const settingsPath = { name: "workspace_id", in: "path", required: true, schema: { type: "integer", minimum: 1 } };
  paths["/v3/workspaces/{workspace_id}/settings"] = {
    get: {
      operationId: "getWorkspaceSettings",
      summary: "The workspace's stored settings (the customer's own workspace; empty when none are stored)",
      security,
      parameters: [settingsPath],
      responses: {
        "200": { description: "the settings", content: { "application/json": { schema: workspaceSettings } } },
        "400": { description: "payload_error (bad workspace_id) or processing_error", content: processing.content },
        "401": err("authentication_error"),
      },
    },
    put: {
      operationId: "putWorkspaceSettings",
      summary: "Replaces the workspace's stored settings; kept until replaced (no retention)",
      security,
      parameters: [settingsPath],
      requestBody: {
        required: true,
        content: {
          "application/json": {
            schema: {
              type: "object", required: ["allowed_domains"], additionalProperties: false,
              properties: { allowed_domains: { type: "array", maxItems: MAX_ALLOWED_DOMAINS, items: { type: "string" }, description: "domain names such as ads.example.com or *.example.com; [] clears the list" } },
            },
          },
        },
      },
      responses: {
        "200": { description: "the settings as stored", content: { "application/json": { schema: workspaceSettings } } },
        "400": { description: "payload_error (bad workspace_id, body or domain; the message names it) or processing_error", content: processing.content },
        "401": err("authentication_error"),
      },
    },
  };
  const text = (d: string, type: string, schema: Record<string, unknown> = { type: "string" }) => ({ description: d, content: { [type]: { schema } } });
  paths["/r/{token}"] = {
    get: {
      operationId: "reportPage",
      summary: "Human-readable report page (capability URL from scan_results.report_url; no API key)",
      parameters: [{ name: "token", in: "path", required: true, schema: { type: "string" } }],
      responses: { "200": text("HTML page", "text/html"), "404": err("invalid_endpoint") },
    },
  };
  paths["/artifacts/{id}"] = {
    get: {
      operationId: "getArtifact",
      summary: "Image of a report (screenshot, thumbnail, film strip, poster, audio wave, landing page); capability URL, no API key",
      parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
      responses: {
        "200": {
          description: "the image; Content-Length equals `bytes` in the report",
          content: { "image/png": { schema: { type: "string", format: "binary" } }, "image/jpeg": { schema: { type: "string", format: "binary" } } },
        },
        "404": err("invalid_endpoint"),
      },
    },
  };
  paths["/healthz"] = { get: { operationId: "healthz", summary: "200 while the edge process is up", responses: { "200": text("ok", "application/json", { type: "object" }) } } };
  paths["/readyz"] = {
    get: {
      operationId: "readyz",
      summary: "200 only when auth, report-store and ≥ 1 worker of each scanner kind answer",
      responses: {
        "200": text("ready", "application/json", { $ref: "#/components/schemas/Readiness" }),
        "503": text("not ready; details say what is missing", "application/json", { $ref: "#/components/schemas/Readiness" }),
      },
    },
  };
  paths["/openapi.json"] = { get: { operationId: "openapi", summary: "This document", responses: { "200": text("OpenAPI 3.1", "application/json", { type: "object" }) } } };
  paths["/docs"] = { get: { operationId: "docs", summary: "This document in Swagger UI, with try it out", responses: { "200": text("HTML", "text/html") } } };
  paths["/"] = { get: { operationId: "console", summary: "The web console: scan any kind from a browser with an API key (the page asks for it and calls this API), then its report page; no API key to load it", responses: { "200": text("HTML", "text/html") } } };

  // Each operation under the group a reader looks for it in (Swagger UI lists them by tag; without, all in "default").
  for (const [path, item] of Object.entries(paths)) {
    for (const op of Object.values(item as Record<string, { tags?: string[] }>)) op.tags = [tagOf(path)];
  }

  return {
    openapi: "3.1.0",
    tags: API_TAGS,
    info: {
      title: "Creative Validation API",
      version: opts.version ?? "1.0.0",
      description:
        "Scans advertising creatives (ad tags, HTML5 zips, VAST tags, raw video, image and audio files) and returns a JSON report with a shareable report page. Every error body is " +
        "`{\"error_type\", \"message\"}`. Every documented key of a report is present in every report: an image with no " +
        "picture is {bytes: 0, mime_type: \"\", url: \"\"}, an info object with nothing in it is {}; a value that was not " +
        "measured is left out and its path listed in not_measured (an object listed there stays, empty). " + limitsText,
    },
    servers: [{ url: opts.publicBaseUrl }],
    paths,
    components: {
      securitySchemes: { ApiKey: { type: "apiKey", in: "header", name: "X-ApiKey" } },
      schemas: {
        Error: {
          type: "object",
          required: ["error_type", "message"],
          additionalProperties: false,
          properties: {
            error_type: { type: "string", enum: ["authentication_error", "invalid_endpoint", "payload_error", "quota_error", "processing_error"] },
            message: { type: "string" },
          },
        },
        TagReportV3: VIEW_SCHEMAS.tag_v3,
        TagReportV2: VIEW_SCHEMAS.tag_v2,
        ZipReportV2: VIEW_SCHEMAS.zip_v2,
        ZipReportV3: VIEW_SCHEMAS.zip_v3,
        VastReportV3: VIEW_SCHEMAS.vast_v3,
        VideoReportV3: VIEW_SCHEMAS.video_v3,
        ImageReportV3: VIEW_SCHEMAS.image_v3,
        AudioReportV3: VIEW_SCHEMAS.audio_v3,
        ReportList: {
          type: "object",
          required: ["reports", "next_page_token"],
          properties: {
            reports: {
              type: "array",
              items: {
                type: "object",
                required: ["job_id", "name", "report_kind", "created_at"],
                properties: {
                  job_id: { type: "string" },
                  name: { type: "string" },
                  report_kind: { type: "string", enum: Object.keys(REPORT_SCHEMA_NAMES) },
                  created_at: { type: "string", format: "date-time" },
                },
              },
            },
            next_page_token: { type: "string", description: "empty on the last page" },
          },
        },
        Readiness: { type: "object", required: ["ready", "details"], properties: { ready: { type: "boolean" }, details: { type: "object" } } },
      },
    },
  };
}

/** The groups of /docs, in the order a new user needs them. */
const API_TAGS = [
  { name: "Scans", description: "Scan a creative: one request, one JSON report (and its report page)" },
  { name: "Reports", description: "Stored reports, by job or by workspace" },
  { name: "Workspaces", description: "A workspace's stored settings" },
  { name: "Pages and images", description: "The report page to share, and the images a report links (no API key: the unguessable URL is the access)" },
  { name: "Service", description: "The console, this document, health and readiness" },
];

function tagOf(path: string): string {
  if (/^\/v\d+\/scan/.test(path)) return "Scans";
  if (/reports/.test(path)) return "Reports";
  if (path.startsWith("/v3/workspaces/")) return "Workspaces";
  if (path.startsWith("/r/") || path.startsWith("/artifacts/")) return "Pages and images";
  return "Service";
}
