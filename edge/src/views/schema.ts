// Tiny builders for the JSON Schemas of the views. The same schema objects serve three purposes: fast-json-stringify
// serialization, the published OpenAPI 3.1 document, and the view tests (ajv, draft 2020-12). Objects are closed
// (additionalProperties: false) so the schema states exactly the documented names.
export type JsonSchema = Record<string, unknown>;

export const int = (description?: string): JsonSchema => ({ type: "integer", ...(description ? { description } : {}) });
export const num = (description?: string): JsonSchema => ({ type: "number", ...(description ? { description } : {}) });
export const str = (description?: string): JsonSchema => ({ type: "string", ...(description ? { description } : {}) });
export const bool = (description?: string): JsonSchema => ({ type: "boolean", ...(description ? { description } : {}) });
export const arr = (items: JsonSchema, description?: string): JsonSchema => ({
  type: "array",
  items,
  ...(description ? { description } : {}),
});
export const map = (values: JsonSchema, description?: string): JsonSchema => ({
  type: "object",
  additionalProperties: values,
  ...(description ? { description } : {}),
});

/** A closed object; every property is required except those listed in `optional`. */
export function obj(properties: Record<string, JsonSchema>, opts: { optional?: string[]; description?: string } = {}): JsonSchema {
  const optional = new Set(opts.optional ?? []);
  return {
    type: "object",
    ...(opts.description ? { description: opts.description } : {}),
    properties,
    required: Object.keys(properties).filter((k) => !optional.has(k)),
    additionalProperties: false,
  };
}

/**
 * An object that is always present and either complete or empty ({}): an info object with nothing in it (no such
 * stream, nothing measured). Typed clients get a union of the two, never a missing key.
 */
export function orEmpty(schema: JsonSchema, description?: string): JsonSchema {
  return {
    anyOf: [schema, { type: "object", properties: {}, additionalProperties: false, description: "empty: nothing there, or not measured" }],
    ...(description ? { description } : {}),
  };
}
