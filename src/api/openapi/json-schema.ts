import type { TSchema } from '@sinclair/typebox';
import { serviceCheckOf, type ServiceCheck } from '../../operations/schema-helpers.js';

export type JsonSchema = Record<string, unknown>;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A schema's `type` as a list: `'string'` → `['string']`, `['string', 'null']` as it is. */
export const typesOf = (schema: JsonSchema): string[] =>
  typeof schema.type === 'string' ? [schema.type] : Array.isArray(schema.type) ? (schema.type as string[]) : [];

/**
 * The wire format a field name promises: every `…At` field is an ISO 8601 date-time, every
 * `…Date` field a calendar date, every `url` an absolute URL. The names are the API's
 * own convention; the response-conformance test checks every answer against these formats,
 * so a field that broke the convention would fail the suite rather than lie in the document.
 */
function formatOf(propertyName: string): string | undefined {
  if (/At$/.test(propertyName)) return 'date-time';
  if (/Date$/.test(propertyName)) return 'date';
  if (propertyName === 'url') return 'uri';
  return undefined;
}

/** Adds a format to a string schema (a nullable one too), or to the string branch of a union. */
function withFormat(schema: JsonSchema, format: string): JsonSchema {
  if (typesOf(schema).includes('string') && schema.format === undefined) return { ...schema, format };
  if (Array.isArray(schema.anyOf)) {
    return { ...schema, anyOf: schema.anyOf.map((branch: JsonSchema) => withFormat(branch, format)) };
  }
  return schema;
}

/**
 * A union of constants of one type (TypeBox's literal union) as a JSON Schema `enum`, which
 * every generator turns into a union of literal types and every reference page lists.
 */
function asEnum(schema: JsonSchema): JsonSchema {
  const branches = schema.anyOf;
  if (!Array.isArray(branches) || branches.length === 0) return schema;
  const consts = branches as JsonSchema[];
  if (!consts.every((branch) => 'const' in branch && branch.type === consts[0].type)) return schema;
  const rest = Object.fromEntries(Object.entries(schema).filter(([key]) => key !== 'anyOf'));
  return { ...rest, type: consts[0].type, enum: consts.map((branch) => branch.const) };
}

/** Keywords that describe rather than constrain: the first branch's is kept, the union's own wins. */
const ANNOTATIONS = new Set(['description', 'title', 'deprecated', 'default', 'examples']);
/** Keywords that constrain values of every type, so a branch holding one cannot be merged by type. */
const ANY_TYPE_KEYWORDS = new Set(['$ref', 'anyOf', 'oneOf', 'allOf', 'not', 'if', 'then', 'else']);

/**
 * A union of branches of different types as one schema with a type list, OpenAPI 3.1's form
 * of a nullable field: `anyOf [{type: string, maxLength: 9}, {type: null}]` becomes
 * `{type: [string, null], maxLength: 9}`. The merge says the same, as every keyword but
 * `type` (and `enum`, which gains `null`) applies to one type only; a union it cannot merge
 * so (two branches of a type, a `$ref`) stays an `anyOf`. Reference renderers read a
 * schema by its type: Scalar refuses, as "document validation errors", a component
 * schema one of whose fields is a bare `anyOf`.
 */
function asTypeList(schema: JsonSchema): JsonSchema {
  const { anyOf: branches, ...outer } = schema;
  if (!Array.isArray(branches) || branches.length < 2) return schema;
  const types: string[] = [];
  const merged: JsonSchema = {};
  const values: unknown[] = [];
  let enumerated = 0;
  for (const branch of branches as unknown[]) {
    if (!isObject(branch)) return schema;
    const own = typesOf(branch);
    if (own.length === 0 || own.some((type) => types.includes(type))) return schema;
    types.push(...own);
    if ('enum' in branch || 'const' in branch) {
      enumerated += 1;
      values.push(...(Array.isArray(branch.enum) ? (branch.enum as unknown[]) : [branch.const]));
    }
    for (const [key, value] of Object.entries(branch)) {
      if (key === 'type' || key === 'enum' || key === 'const') continue;
      if (ANNOTATIONS.has(key)) {
        if (!(key in merged)) merged[key] = value;
        continue;
      }
      if (ANY_TYPE_KEYWORDS.has(key) || key in merged) return schema;
      merged[key] = value;
    }
  }
  const nonNull = branches.filter((branch: JsonSchema) => !typesOf(branch).every((type) => type === 'null'));
  // An enum restricts every type: merged only when every branch but null is one.
  if (enumerated > 0 && enumerated !== nonNull.length) return schema;
  const list = enumerated > 0 ? { enum: types.includes('null') ? [...values, null] : values } : {};
  // The union's own keywords (its description) win over its branches'.
  return {
    ...outer,
    type: types,
    ...Object.fromEntries(Object.entries(merged).filter(([key]) => !(key in outer))),
    ...list,
  };
}

/** The keywords of a check a service makes, as the document shows them (schema-helpers `serviceCheck`). */
function checkKeywords(check: Omit<ServiceCheck, 'items'>, types: string[]): JsonSchema {
  return check.enum && types.includes('null') ? { ...check, enum: [...check.enum, null] } : { ...check };
}

/**
 * A request body's objects closed to unknown fields (`additionalProperties: false`): the
 * validator refuses a body field it does not know (operations/validate.ts), and so does
 * the check of each item of a bulk write and of every nested object. Component schemas a
 * body refers to are left as they are: answers use them too.
 */
function closed(schema: JsonSchema): JsonSchema {
  if (typeof schema.$ref === 'string') return schema;
  const out: JsonSchema = { ...schema };
  if (isObject(out.properties)) {
    out.properties = Object.fromEntries(
      Object.entries(out.properties).map(([name, sub]) => [name, isObject(sub) ? closed(sub) : sub]),
    );
    if (typesOf(out).includes('object') && out.additionalProperties === undefined) out.additionalProperties = false;
  }
  if (isObject(out.items)) out.items = closed(out.items);
  for (const key of ['anyOf', 'oneOf', 'allOf']) {
    if (Array.isArray(out[key])) out[key] = (out[key] as unknown[]).map((b) => (isObject(b) ? closed(b) : b));
  }
  return out;
}

/**
 * Turns TypeBox schemas into the document's JSON Schema: TypeBox's symbol metadata is
 * dropped (a service's own check becomes its keywords), schemas that have a component name
 * become `$ref`s (their body is kept once in `components`), literal unions become enums,
 * nullable fields a type list, and date, date-time and URL fields carry their format.
 */
export class SchemaConverter {
  readonly components: Record<string, JsonSchema> = {};

  constructor(private readonly names: Map<TSchema, string>) {}

  /** `name` names this schema itself as a component (a body or an envelope). */
  convert(schema: TSchema, name?: string): JsonSchema {
    const own = name ?? this.names.get(schema);
    if (own === undefined) return this.body(schema);
    if (!(own in this.components)) {
      this.components[own] = {}; // claimed first, so a schema that contains itself stops here
      this.components[own] = this.body(schema);
    }
    return { $ref: `#/components/schemas/${own}` };
  }

  /** A request body, kept as the component `name`, its objects closed to unknown fields. */
  request(schema: TSchema, name: string): JsonSchema {
    const ref = this.convert(schema, name);
    this.components[name] = closed(this.components[name]);
    return ref;
  }

  /** A property (or parameter) called `name`: its schema with the format its name promises. */
  property(name: string, schema: TSchema): JsonSchema {
    const converted = this.convert(schema);
    const format = formatOf(name);
    return format ? withFormat(converted, format) : converted;
  }

  private body(schema: TSchema): JsonSchema {
    const out: JsonSchema = {};
    for (const [key, value] of Object.entries(schema)) {
      if (key === 'properties' && isObject(value)) {
        out.properties = Object.fromEntries(
          Object.entries(value).map(([property, sub]) => [property, this.property(property, sub as TSchema)]),
        );
      } else if (Array.isArray(value)) {
        out[key] = value.map((item: unknown) => (isObject(item) ? this.convert(item as TSchema) : item));
      } else if (isObject(value)) {
        out[key] = this.convert(value as TSchema);
      } else {
        out[key] = value;
      }
    }
    const check = serviceCheckOf(schema);
    if (check) {
      const { items, ...keywords } = check;
      Object.assign(out, checkKeywords(keywords, typesOf(out)));
      if (items && isObject(out.items)) out.items = { ...out.items, ...checkKeywords(items, typesOf(out.items)) };
    }
    return asTypeList(asEnum(out));
  }
}
