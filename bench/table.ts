// The one table `npm run bench` prints: every figure beside its floor measured in the same run, and its goal.
// Other bench modules (e.g. a cold-start one) add rows through `BenchTable.add`.

export interface Row {
  figure: string;
  value: string;
  /** The floor (or baseline) measured in the same run, with what it is. */
  floor: string;
  /** The figure against its floor: "1.31×", "+212 ms". */
  vs: string;
  /** The goal, "—" when there is none. */
  goal: string;
  /** Whether the goal was met; undefined when there is no goal or nothing was measured. */
  met?: boolean;
}

export class BenchTable {
  readonly rows: Row[] = [];

  add(row: Partial<Row> & { figure: string; value: string }): void {
    const r: Row = { floor: "—", vs: "—", goal: "—", ...row };
    this.rows.push(r);
    // Progress on stderr as rows arrive (a bench run takes minutes); the table itself goes to stdout at the end.
    process.stderr.write(`  ${r.figure}: ${r.value}  [floor: ${r.floor}] ${r.vs} ${goalCell(r)}\n`);
  }

  /** A figure that could not be measured says why, instead of a number. */
  missing(figure: string, why: string, goal = "—"): void {
    this.add({ figure, value: `n/a (${why})`, goal });
  }

  markdown(): string {
    const head = ["figure", "value", "floor (same run)", "vs floor", "goal"];
    const cells = this.rows.map((r) => [r.figure, r.value, r.floor, r.vs, goalCell(r)]);
    const w = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
    const line = (c: string[]) => `| ${c.map((s, i) => s.padEnd(w[i]!)).join(" | ")} |`;
    return [line(head), line(w.map((n) => "-".repeat(n))), ...cells.map(line)].join("\n");
  }
}

function goalCell(r: Row): string {
  if (r.goal === "—") return r.goal;
  return r.met === undefined ? r.goal : `${r.goal} ${r.met ? "✓" : "✗"}`;
}

/** Nearest-rank percentile. */
export function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]! : NaN;
}

export const median = (xs: number[]) => pct(xs, 50);
export const ms = (n: number) => (Number.isFinite(n) ? `${Math.round(n).toLocaleString("en").replace(/,/g, " ")} ms` : "n/a");
export const ratio = (a: number, b: number) => (b > 0 && Number.isFinite(a) ? `${(a / b).toFixed(2)}×` : "—");
export const plusMs = (a: number, b: number) => (Number.isFinite(a - b) ? `${a - b >= 0 ? "+" : "−"}${Math.abs(Math.round(a - b))} ms` : "—");
