// The Dockerfile as data, for tests: stages (FROM … AS name) and their instructions, continuation lines joined.
import { readFileSync } from "node:fs";
import { join } from "node:path";

export interface Instruction { op: string; args: string; line: number }
export interface Stage { name: string; from: string; instructions: Instruction[] }

export function readDockerfile(root: string): { args: Map<string, string>; stages: Stage[] } {
  const lines = readFileSync(join(root, "Dockerfile"), "utf8").split("\n");
  const args = new Map<string, string>();
  const stages: Stage[] = [];
  for (let i = 0; i < lines.length; i++) {
    const start = i;
    let text = lines[i]!;
    if (/^\s*(#|$)/.test(text)) continue;
    while (text.endsWith("\\") && i + 1 < lines.length) text = text.slice(0, -1) + " " + lines[++i]!.trim();
    const m = /^\s*([A-Z]+)\s+(.*)$/.exec(text);
    if (!m) throw new Error(`Dockerfile line ${start + 1}: cannot read ${JSON.stringify(text)}`);
    const [, op, rest] = m as unknown as [string, string, string];
    if (op === "FROM") {
      const f = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(rest.trim());
      if (!f) throw new Error(`Dockerfile line ${start + 1}: FROM ${rest}`);
      stages.push({ name: f[2] ?? String(stages.length), from: f[1]!, instructions: [] });
    } else if (op === "ARG" && stages.length === 0) {
      const [k, v] = rest.split("=", 2);
      args.set(k!.trim(), (v ?? "").trim());
    } else {
      stages.at(-1)?.instructions.push({ op, args: rest.trim(), line: start + 1 });
    }
  }
  return { args, stages };
}

/** ENV KEY=value … of a stage and the stages it is built FROM. */
export function envOfStage(df: { stages: Stage[] }, name: string): Record<string, string> {
  const stage = df.stages.find((s) => s.name === name);
  if (!stage) return {};
  const parent = df.stages.some((s) => s.name === stage.from) ? envOfStage(df, stage.from) : {};
  const own = Object.fromEntries(stage.instructions.filter((i) => i.op === "ENV").flatMap((i) => [...i.args.matchAll(/([A-Z_][A-Z0-9_]*)=(\S+)/g)].map((m) => [m[1]!, m[2]!])));
  return { ...parent, ...own };
}

/** The last USER of a stage or the stages it is built FROM. */
export function userOfStage(df: { stages: Stage[] }, name: string): string | undefined {
  const stage = df.stages.find((s) => s.name === name);
  if (!stage) return undefined;
  const own = stage.instructions.filter((i) => i.op === "USER").at(-1)?.args;
  return own ?? (df.stages.some((s) => s.name === stage.from) ? userOfStage(df, stage.from) : undefined);
}
