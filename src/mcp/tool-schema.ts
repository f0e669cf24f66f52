import type { TSchema } from '@sinclair/typebox';
import { aliasOf, isCommonParameter } from '../operations/schema-helpers.js';

/**
 * The JSON Schema a tool shows for the catalog's TypeBox schemas. An agent reads every tool
 * schema on every session, so it is the catalog's schema made compact, saying the same:
 * - alias fields (schema-helpers `alias`: `labels`, `project`, `epicId`, …) are left out,
 *   one name per concept; the tool refuses them (aliasesSent);
 * - common parameters (limit, cursor, fields, …) have no description, and some are not
 *   listed at all (HOISTED): the server's instructions explain them once;
 * - a set of literals is an `enum`, a nullable field a `type` pair, not an `anyOf` of
 *   one-value schemas;
 * - a description keeps its first sentence if that is short, else nothing, and no error
 *   code it names in parentheses (the OpenAPI document has them whole; the call answers
 *   the code with its own message);
 * - length, count and number bounds are left out: the call still enforces them
 *   (VALIDATION_FAILED with details.min / details.max), and the OpenAPI document lists them.
 */

type JsonSchema = Record<string, unknown>;

export interface Fields {
  properties: Record<string, JsonSchema>;
  required: string[];
}

/**
 * Common parameters a tool list leaves out: the server's instructions say which tools take
 * them (every list that syncs: sort=updatedAt with updatedSince; every read: fields).
 */
const HOISTED = new Set(['fields', 'sort', 'updatedSince']);

/** Descriptions longer than this keep their first sentence. */
const LONG_DESCRIPTION = 20;
/** An error code named in parentheses, "(TITLE_REQUIRED)": the call answers it, with its own message. */
const NAMED_CODE = /\s*\([^()]*\b[A-Z][A-Z_]{4,}\b[^()]*\)/g;

const isObject = (value: unknown): value is JsonSchema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The first sentence: up to a full stop followed by a space (not the one of "e.g."). */
function shortDescription(described: string): string | undefined {
  const text = described.replace(NAMED_CODE, '');
  if (text.length <= LONG_DESCRIPTION) return text;
  const first = /^.+?(?<!\be\.g|\bi\.e)\.(?=\s)/.exec(text)?.[0];
  return first && first.length <= LONG_DESCRIPTION ? first : undefined;
}

const mapValues = (record: Record<string, unknown>, f: (value: unknown) => unknown) =>
  Object.fromEntries(Object.entries(record).map(([key, value]) => [key, f(value)]));

/** `anyOf` members that are all literals of one type, as an enum; undefined otherwise. */
function asEnum(members: JsonSchema[]): JsonSchema | undefined {
  if (!members.every((member) => 'const' in member && member.type === members[0].type)) return undefined;
  return { type: members[0].type, enum: members.map((member) => member.const) };
}

/** `[X, null]` as X whose type (and enum) admit null; undefined when X has no single type. */
function asNullable(members: JsonSchema[]): JsonSchema | undefined {
  if (members.length !== 2 || members[1].type !== 'null' || typeof members[0].type !== 'string') return undefined;
  const value = members[0];
  const values = value.enum as unknown[] | undefined;
  return { ...value, type: [value.type, 'null'], ...(values ? { enum: [...values, null] } : {}) };
}

function compact(node: unknown): unknown {
  if (!isObject(node)) return node;
  const { anyOf, properties, items, description, ...rest } = node;
  const out: JsonSchema = { ...rest };
  delete out.maxLength;
  delete out.maxItems;
  delete out.minimum;
  const short = typeof description === 'string' ? shortDescription(description) : undefined;
  if (short) out.description = short;
  if (isObject(properties)) out.properties = mapValues(properties, compact);
  if (items !== undefined) out.items = compact(items);
  if (!Array.isArray(anyOf)) return out;
  const members = anyOf.map(compact) as JsonSchema[];
  const merged = asEnum(members) ?? asNullable(members);
  // The outer description (a union's) wins over a member's.
  return merged ? { ...merged, ...out } : { ...out, anyOf: members };
}

/**
 * The schema as plain, compact JSON Schema, without alias fields (or TypeBox's symbols).
 * `listed`: as a tool list shows it, without the common parameters HOISTED names, which
 * the server's instructions describe once for every tool that takes them; the call still
 * takes them.
 */
export function toolJsonSchema(schema: TSchema, listed = false): JsonSchema {
  const json = JSON.parse(
    JSON.stringify(schema, (key, value: unknown) => {
      if (aliasOf(value) !== undefined) return undefined;
      if (!isCommonParameter(value)) return value;
      return listed && HOISTED.has(key) ? undefined : { ...(value as JsonSchema), description: undefined };
    }),
  ) as JsonSchema;
  return compact(json) as JsonSchema;
}

/** Properties of an object schema, or of every member of a union of object schemas (`listed`: see toolJsonSchema). */
export function fieldsOf(schema: TSchema | undefined, listed = false): Fields {
  if (!schema) return { properties: {}, required: [] };
  const json = toolJsonSchema(schema, listed);
  if (isObject(json.properties))
    return { properties: json.properties as Record<string, JsonSchema>, required: (json.required as string[]) ?? [] };
  const members = (json.anyOf ?? json.oneOf) as JsonSchema[] | undefined;
  if (!members) return { properties: {}, required: [] };
  return {
    properties: Object.assign({}, ...members.map((m) => m.properties ?? {})) as Record<string, JsonSchema>,
    required: [],
  };
}

const joinPath = (path: string, key: string): string => (path ? `${path}.${key}` : key);

/**
 * Dotted paths of alias fields in a value, at any depth its schema describes (a bulk
 * write's items): the tool schema leaves them out, so a call must not use them either.
 * The walk goes no deeper than the schema does, whatever the input's depth.
 */
export function aliasesSent(schema: unknown, value: unknown, path = ''): string[] {
  if (!isObject(schema)) return [];
  const members = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(members))
    return [...new Set(members.flatMap((member: unknown) => aliasesSent(member, value, path)))];
  if (Array.isArray(value))
    return value.flatMap((item, index) => aliasesSent(schema.items, item, joinPath(path, String(index))));
  if (!isObject(value) || !isObject(schema.properties)) return [];
  const { properties } = schema;
  return Object.keys(value).flatMap((name) => {
    if (!Object.hasOwn(properties, name)) return [];
    const at = joinPath(path, name);
    return aliasOf(properties[name]) !== undefined ? [at] : aliasesSent(properties[name], value[name], at);
  });
}
