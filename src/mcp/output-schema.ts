import type { TSchema } from '@sinclair/typebox';
import { toolJsonSchema } from './tool-schema.js';

type JsonSchema = Record<string, unknown>;

/** A tool's `outputSchema`: what its `structuredContent` holds when the call succeeds. */
// A type, not an interface: it is handed on where any JSON object is taken.
export type OutputSchema = {
  type: 'object';
  properties: Record<string, JsonSchema>;
};

const isObject = (value: unknown): value is JsonSchema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A schema's JSON type(s) and nothing below them: `{ type: 'object' }` for a record, `{ type: 'array' }` for a list. */
function typeOnly(schema: unknown): JsonSchema {
  if (!isObject(schema)) return {};
  if (schema.type !== undefined) return { type: schema.type };
  const members = schema.anyOf ?? schema.oneOf;
  if (!Array.isArray(members)) return {};
  const types = [...new Set(members.flatMap((member) => [typeOnly(member).type].flat()))];
  return types.length > 0 && types.every((type) => typeof type === 'string') ? { type: types } : {};
}

/**
 * The `outputSchema` of an operation's tool, from the catalog's response schema: the
 * answer's top-level fields with their JSON types (`issue: object`, `issues: array`,
 * `pageInfo: object`), none required: a tool error carries the error body
 * (`code`, `error`, `details`, `suggestion`) as its structured content too, and 2025-era
 * clients check that against the schema as well. It stops at that level on
 * purpose: `fields` narrows the records and a result over its budget has long text cut
 * (budget.ts), so a deeper schema would either refuse honest answers or say less than
 * it seems to; and every client reads every tool's schemas at the start of a session
 * (the OpenAPI document has the records in full). A route that answers no body (204)
 * has an empty object.
 */
export function outputSchemaOf(response: TSchema | undefined): OutputSchema {
  const json = response ? toolJsonSchema(response) : {};
  const properties = isObject(json.properties) ? json.properties : {};
  return {
    type: 'object',
    properties: Object.fromEntries(Object.entries(properties).map(([name, schema]) => [name, typeOnly(schema)])),
  };
}
