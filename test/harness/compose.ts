// docker-compose.yml as `docker compose config` reads it, for tests (no container engine runs here): YAML with merge
// keys (<<), `${VAR}`, `${VAR:-default}`, `${VAR-default}`, `${VAR:?error}` and `$$` interpolated from an
// environment, then validated against the Compose Specification's JSON Schema (test/schemas/compose-spec.json).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv } from "ajv";
import { parse } from "yaml";

export type Compose = { services: Record<string, ComposeService>; networks?: Record<string, { internal?: boolean } | null>; volumes?: Record<string, unknown> };
export type ComposeService = Record<string, any>;

export function readCompose(root: string): unknown {
  return parse(readFileSync(join(root, "docker-compose.yml"), "utf8"), { merge: true });
}

const VAR = /\$(\$|\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([^}]*))?\}|([A-Za-z_][A-Za-z0-9_]*))/g;

export function interpolate(value: string, env: Record<string, string | undefined>): string {
  return value.replace(VAR, (_m, all: string, name?: string, op?: string, arg?: string, bare?: string) => {
    if (all === "$") return "$";
    const key = name ?? bare!;
    const v = env[key];
    const unset = op?.startsWith(":") ? !v : v === undefined;
    if (op?.endsWith("?") && unset) throw new Error(`required variable ${key} is missing: ${arg}`);
    if (op?.endsWith("-") && unset) return arg ?? "";
    return v ?? "";
  });
}

export function interpolateTree<T>(node: T, env: Record<string, string | undefined>): T {
  if (typeof node === "string") return interpolate(node, env) as T;
  if (Array.isArray(node)) return node.map((n) => interpolateTree(n, env)) as T;
  if (node && typeof node === "object") return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, interpolateTree(v, env)])) as T;
  return node;
}

export function composeSchemaErrors(root: string, model: unknown): string[] {
  const ajv = new Ajv({ allErrors: true, strict: false });
  // It names draft-07 by its https URL, which Ajv does not know by that name; Ajv's default dialect is draft-07.
  const { $schema: _dialect, ...schema } = JSON.parse(readFileSync(join(root, "test/schemas/compose-spec.json"), "utf8"));
  const validate = ajv.compile(schema);
  return validate(model) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message} ${JSON.stringify(e.params)}`);
}

/** A service's environment as a map (compose accepts a map or a list of NAME=value). */
export function envOf(s: ComposeService): Record<string, string> {
  const e = s.environment ?? {};
  if (Array.isArray(e)) return Object.fromEntries(e.map((x: string) => [x.split("=")[0], x.slice(x.indexOf("=") + 1)]));
  return Object.fromEntries(Object.entries(e).map(([k, v]) => [k, String(v ?? "")]));
}
