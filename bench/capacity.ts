// The capacity curve: static tag scans/min and p95 at 1, 2, 4, 8 closed-loop clients, per tag scanner configuration
// (browsers x slots), beside the same curve for the floor (contexts at the same concurrency in one running Chromium).
import type { TestStack } from "../test/harness/stack.ts";
import { floorScan, type FloorBrowser } from "./browser-floor.ts";
import { AD_BOX, AD_PAGE, TAG_BODY } from "./creatives.ts";
import { runClients, scanAttempt } from "./load.ts";
import { TAG_SCANNED, records } from "./logs.ts";
import { countCpu, totalCpu, type CpuByKind } from "./cpu.ts";
import { sampleTree } from "./memory.ts";
import { type BenchTable, median, ms, pct, ratio } from "./table.ts";

export const LEVELS = [1, 2, 4, 8];
/** Scans per level: enough for a p95 that is not just the maximum at the higher levels. */
const scansAt = (clients: number) => Math.max(8, 4 * clients);
/** The goal's load: 4 clients. */
const GOAL_CLIENTS = 4;
const GOAL_PER_MIN = 120;
/** ... and this share of the floor's contexts/min at the same concurrency (issue 22). */
const GOAL_VS_FLOOR = 0.85;

export interface Point {
  clients: number;
  perMinute: number;
  p95: number;
  refused: number;
  failed: number;
  /** Median scan-log setup phase and reported cpu_usage (renderer task time) at this load. */
  setup?: number;
  cpu?: number;
  /** The tag scanner's Chromium while this level ran: median PSS of all its processes, MB, per worker slot, and the process count. */
  mbPerSlot?: number;
  processes?: number;
  /** CPU seconds (user + sys) per answered scan at this level, per process kind (bench/cpu.ts), and their sum. */
  cpuPerScan?: CpuByKind;
  cpuSPerScan?: number;
}

export interface Curve {
  label: string;
  points: Point[];
}

export async function tagCurve(stack: TestStack, key: string, label: string, slots = 1): Promise<Curve> {
  const once = scanAttempt(stack.baseUrl, "/v3/scanTag", TAG_BODY, key);
  for (let i = 0; i < 2; i++) await once(); // a fresh stack's first scans warm its pages and JIT
  const points: Point[] = [];
  for (const clients of LEVELS) {
    const from = stack.logs.length;
    const mem = sampleTree(stack.pids().get("tag-scanner"));
    const cpuCount = countCpu(stack.pids());
    const r = await runClients(clients, scansAt(clients), once);
    const m = mem.stop();
    const cpuUsed = cpuCount.stop();
    const recs = records(stack.logs, from, ...TAG_SCANNED);
    const cpu = r.values.map((v) => Number(v?.cpu_usage)).filter((v) => Number.isFinite(v));
    points.push({
      clients, perMinute: r.perMinute, p95: pct(r.times, 95), refused: r.refused, failed: r.failures.length,
      setup: recs.length ? median(recs.map((x) => x.phase_ms?.setup as number)) : undefined,
      cpu: cpu.length ? median(cpu) : undefined,
      ...(m ? { mbPerSlot: m.pssMb / slots, processes: m.processes } : {}),
      ...perScan(cpuUsed, r.times.length),
    });
  }
  return { label, points };
}

function perScan(cpu: CpuByKind, scans: number): Pick<Point, "cpuPerScan" | "cpuSPerScan"> {
  if (scans === 0 || Object.keys(cpu).length === 0) return {};
  const each = Object.fromEntries(Object.entries(cpu).map(([k, v]) => [k, v / scans]));
  return { cpuPerScan: each, cpuSPerScan: totalCpu(cpu) / scans };
}

export async function floorCurve(floor: FloorBrowser): Promise<Curve> {
  const points: Point[] = [];
  const pid = floor.browser.process()?.pid;
  for (const clients of LEVELS) {
    // The floor's Chromium is this process's child: its tree is counted as the tag scanner's is (under "floor").
    const cpuCount = pid ? countCpu(new Map([["floor", pid]]), "floor") : undefined;
    const r = await runClients(clients, scansAt(clients), async () => ({ ok: true as const, value: await floorScan(floor.browser, AD_PAGE, AD_BOX) }));
    points.push({ clients, perMinute: r.perMinute, p95: pct(r.times, 95), refused: 0, failed: 0, ...(cpuCount ? perScan(cpuCount.stop(), r.times.length) : {}) });
  }
  return { label: "floor", points };
}

export function addCurveRows(table: BenchTable, curve: Curve, floor: Curve | undefined): void {
  for (const p of curve.points) {
    const f = floor?.points.find((x) => x.clients === p.clients);
    const extra = [
      p.refused ? `${p.refused} refused` : "",
      p.failed ? `${p.failed} failed` : "",
      p.setup !== undefined ? `setup p50 ${Math.round(p.setup)} ms` : "",
      p.cpu !== undefined ? `cpu_usage p50 ${Math.round(p.cpu)} ms` : "",
      p.mbPerSlot !== undefined ? `Chromium ${Math.round(p.mbPerSlot)} MB PSS per slot, ${p.processes} processes` : "",
      p.cpuSPerScan !== undefined ? `CPU ${p.cpuSPerScan.toFixed(2)} s/scan: ${cpuParts(p.cpuPerScan!)}` : "",
    ].filter(Boolean);
    const goal = p.clients === GOAL_CLIENTS;
    table.add({
      figure: `capacity: static tag, ${curve.label}, ${p.clients} client${p.clients > 1 ? "s" : ""}`,
      value: `${p.perMinute.toFixed(1)} scans/min, p95 ${ms(p.p95)}${extra.length ? ` (${extra.join(", ")})` : ""}`,
      floor: f ? `${f.perMinute.toFixed(0)}/min, p95 ${ms(f.p95)} at ${p.clients} context${p.clients > 1 ? "s" : ""}${f.cpuSPerScan !== undefined ? `, CPU ${f.cpuSPerScan.toFixed(2)} s each` : ""}` : "—",
      vs: f ? ratio(p.perMinute, f.perMinute) : "—",
      ...(goal ? { goal: `≥ ${GOAL_PER_MIN} scans/min and ≥ ${GOAL_VS_FLOOR}× floor`, met: p.perMinute >= GOAL_PER_MIN && (!f || p.perMinute >= GOAL_VS_FLOOR * f.perMinute) } : {}),
    });
  }
}

/** The kinds that cost at least 0.01 s a scan, largest first: "renderers 0.61, tag-scanner 0.40, …". */
function cpuParts(c: CpuByKind): string {
  return Object.entries(c).filter(([, v]) => v >= 0.01).sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k.replace(/^chromium /, "")} ${v.toFixed(2)}`).join(", ");
}

/**
 * The configuration to recommend: the most scans/min at the goal's load (4 clients); among those within 5 % of it,
 * the lowest p95 at 8 clients (the configuration that degrades least when over-subscribed).
 */
export function bestCurve(curves: Curve[]): Curve | undefined {
  const at = (c: Curve, n: number) => c.points.find((p) => p.clients === n);
  const top = Math.max(...curves.map((c) => at(c, GOAL_CLIENTS)?.perMinute ?? 0));
  const near = curves.filter((c) => (at(c, GOAL_CLIENTS)?.perMinute ?? 0) >= 0.95 * top);
  return near.sort((a, b) => (at(a, 8)?.p95 ?? Infinity) - (at(b, 8)?.p95 ?? Infinity))[0];
}

export function summarize(c: Curve): string {
  const p4 = c.points.find((p) => p.clients === GOAL_CLIENTS);
  const p8 = c.points.find((p) => p.clients === 8);
  return `${c.label}: ${p4?.perMinute.toFixed(1)} scans/min at 4 clients, p95 ${ms(p4?.p95 ?? NaN)}; at 8 clients p95 ${ms(p8?.p95 ?? NaN)}`;
}
