import { clone, create, equals, fromBinary, toBinary } from "@bufbuild/protobuf";
import { reportstore } from "@cva/contracts";
import type { KV, KvEntry } from "@nats-io/kv";
import { alreadyExists, invalidArgument, kvStream, replicatedKvm, REPORTS_BUCKET } from "@cva/platform";
import type { NatsConnection } from "@nats-io/transport-node";
import { invertedMs, token } from "./encode.ts";
import { DAY_MS, applyMaxAge } from "./retention.ts";

type StoredReport = reportstore.StoredReport;
type ReportSummary = reportstore.ReportSummary;

export const DEFAULT_RETENTION_DAYS = 30;
export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;
const MAX_ID = 200;
const CURSOR = /^\d{13}\.[A-Za-z0-9_-]+$/;

export interface ReportStoreOptions {
  // How long reports (and their index entries) are kept: the bucket's max_age. 0 keeps them forever.
  retentionMs?: number;
  now?: () => number;
}

export interface ReportPage {
  reports: ReportSummary[];
  nextPageToken: string;
}

export interface ReportStore {
  // Write-once: storing the same report again is a no-op, a different report under the same job_id is refused.
  put(report: StoredReport): Promise<void>;
  // undefined unless the report exists AND belongs to customerId: other customers cannot learn it exists.
  get(jobId: string, customerId: string): Promise<StoredReport | undefined>;
  getByPageToken(pageToken: string): Promise<StoredReport | undefined>;
  // Newest first. pageToken is the opaque nextPageToken of the previous page ("" for the first).
  listWorkspace(customerId: string, workspaceId: bigint, pageSize: number, pageToken: string): Promise<ReportPage>;
}

const live = (e: KvEntry | null): e is KvEntry => !!e && e.operation === "PUT" && e.length > 0;

// KV layout of cva_reports (every id base64url-encoded into one subject token):
//   r.<job>                                     → StoredReport (protobuf)
//   ws.<customer>.<workspace>.<inverted ms>.<job> → ReportSummary (protobuf), listed with keys("ws.<c>.<w>.>")
//   p.<page token>                              → job_id (UTF-8)
// All three expire together through the bucket's max_age (retention).
export async function createReportStore(nc: NatsConnection, opts: ReportStoreOptions = {}): Promise<ReportStore> {
  const retentionMs = opts.retentionMs ?? DEFAULT_RETENTION_DAYS * DAY_MS;
  const kv = await replicatedKvm(nc).create(REPORTS_BUCKET, { history: 1, ttl: retentionMs });
  await applyMaxAge(nc, kvStream(REPORTS_BUCKET), retentionMs);
  return new KvReportStore(kv, opts.now ?? Date.now);
}

function checkId(field: string, v: string): string {
  if (!v) throw invalidArgument(`${field} is required`);
  if (v.length > MAX_ID) throw invalidArgument(`${field} is longer than ${MAX_ID} characters`);
  return v;
}

class KvReportStore implements ReportStore {
  constructor(
    private readonly kv: KV,
    private readonly now: () => number,
  ) {}

  async put(input: StoredReport): Promise<void> {
    checkId("report.job_id", input.jobId);
    checkId("report.customer_id", input.customerId);
    if (input.pageToken.length > MAX_ID) throw invalidArgument(`report.page_token is longer than ${MAX_ID} characters`);
    const report = clone(reportstore.StoredReportSchema, input);
    if (report.createdUnixMs === 0n) report.createdUnixMs = BigInt(this.now());
    const rk = `r.${token(report.jobId)}`;
    // The report first (source of truth), then its index entries: a failure in between leaves no dangling index
    // entry, and a retried PutReport completes the index because every step below is idempotent.
    try {
      await this.kv.create(rk, toBinary(reportstore.StoredReportSchema, report));
    } catch (err) {
      const e = await this.kv.get(rk);
      if (!live(e)) throw err;
      const existing = fromBinary(reportstore.StoredReportSchema, e.value);
      // A retry without created_unix_ms was stamped with a new "now": compare everything else.
      if (input.createdUnixMs === 0n) report.createdUnixMs = existing.createdUnixMs;
      if (!equals(reportstore.StoredReportSchema, existing, report)) {
        throw alreadyExists(`a different report is already stored for job_id ${report.jobId}`);
      }
    }
    // The two index entries need only the report: written at once (one replicated write's wait, not two, before the
    // scan's answer goes out).
    const pageToken = async () => {
      if (!report.pageToken) return;
      const pk = `p.${token(report.pageToken)}`;
      try {
        await this.kv.create(pk, report.jobId);
      } catch (err) {
        const e = await this.kv.get(pk);
        if (!live(e)) throw err;
        if (e.string() !== report.jobId) throw alreadyExists("report.page_token is already used by another report");
      }
    };
    const summary = create(reportstore.ReportSummarySchema, {
      jobId: report.jobId,
      reportKind: report.reportKind,
      name: report.name,
      createdUnixMs: report.createdUnixMs,
    });
    const ik = `${this.wsPrefix(report.customerId, report.workspaceId)}.${invertedMs(Number(report.createdUnixMs))}.${token(report.jobId)}`;
    // Both settle before put answers: a failed put leaves no write of its own still in flight behind a retry.
    const failed = (await Promise.allSettled([pageToken(), this.kv.put(ik, toBinary(reportstore.ReportSummarySchema, summary))]))
      .find((r) => r.status === "rejected");
    if (failed) throw failed.reason;
  }

  async get(jobId: string, customerId: string): Promise<StoredReport | undefined> {
    if (!jobId || !customerId || jobId.length > MAX_ID) return undefined;
    const r = await this.read(jobId);
    return r && r.customerId === customerId ? r : undefined;
  }

  async getByPageToken(pageToken: string): Promise<StoredReport | undefined> {
    if (!pageToken || pageToken.length > MAX_ID) return undefined;
    const e = await this.kv.get(`p.${token(pageToken)}`);
    if (!live(e)) return undefined;
    const r = await this.read(e.string());
    return r && r.pageToken === pageToken ? r : undefined;
  }

  async listWorkspace(customerId: string, workspaceId: bigint, pageSize: number, pageToken: string): Promise<ReportPage> {
    checkId("customer_id", customerId);
    const size = pageSize <= 0 ? DEFAULT_PAGE_SIZE : Math.min(pageSize, MAX_PAGE_SIZE);
    let cursor = "";
    if (pageToken) {
      cursor = Buffer.from(pageToken, "base64url").toString("utf8");
      if (!CURSOR.test(cursor)) throw invalidArgument("page_token is not a token from a previous response");
    }
    const prefix = this.wsPrefix(customerId, workspaceId);
    const suffixes: string[] = [];
    for await (const k of await this.kv.keys(`${prefix}.>`)) suffixes.push(k.slice(prefix.length + 1));
    // Inverted timestamps: ascending key order is newest first.
    suffixes.sort();
    const reports: ReportSummary[] = [];
    let last = "";
    let more = false;
    for (const s of suffixes) {
      if (cursor && s <= cursor) continue;
      if (reports.length === size) {
        more = true;
        break;
      }
      const e = await this.kv.get(`${prefix}.${s}`);
      if (!live(e)) continue; // expired or deleted since the listing
      reports.push(fromBinary(reportstore.ReportSummarySchema, e.value));
      last = s;
    }
    return { reports, nextPageToken: more ? Buffer.from(last, "utf8").toString("base64url") : "" };
  }

  private wsPrefix(customerId: string, workspaceId: bigint): string {
    return `ws.${token(customerId)}.${workspaceId.toString()}`;
  }

  private async read(jobId: string): Promise<StoredReport | undefined> {
    const e = await this.kv.get(`r.${token(jobId)}`);
    return live(e) ? fromBinary(reportstore.StoredReportSchema, e.value) : undefined;
  }
}
