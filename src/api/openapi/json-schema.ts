import type { TSchema } from '@sinclair/typebox';

export type JsonSchema = Record<string, unknown>;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

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

/** Adds a format to a string schema, or to the string branch of a nullable one. */
function withFormat(schema: JsonSchema, format: string): JsonSchema {
  if (schema.type === 'string' && schema.format === undefined) return { ...schema, format };
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

/**
 * Turns TypeBox schemas into the document's JSON Schema: TypeBox's symbol metadata is
 * dropped, schemas that have a component name become `$ref`s (their body is kept once in
 * `components`), literal unions become enums, and date, date-time and URL fields carry
 * their format.
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
    return asEnum(out);
  }
}
