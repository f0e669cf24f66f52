import { Kind, type TLiteral, type TObject, type TSchema, type TUnion } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { ValueErrorType, type ValueError } from '@sinclair/typebox/errors';
import { Value } from '@sinclair/typebox/value';
import { ApiError, type ErrorCode } from '../core/errors.js';
import { LIMITS } from '../core/limits.js';
import { hasOwn } from '../core/values.js';
import type { Operation, OperationInput } from './define.js';
import { OVER_LIMIT_CODE } from './schema-helpers.js';

/**
 * Turns raw params, query and body into an operation's typed input, or throws the code the
 * API's rules ask for (docs/api.md, "Errors"): input nested too deep → VALIDATION_FAILED
 * with `field` and `max`; unknown query parameters or body fields → VALIDATION_FAILED with
 * `unknownFields`; a value over a bound → VALIDATION_FAILED with `field` and `max` (or the
 * bound's own code); a bad field with its own code (fieldCodes) → that code; any other bad
 * field → VALIDATION_FAILED with `field` as a dotted path. A field whose value must be one of a fixed set (a union of
 * literals) also carries `allowed`, the set in schema order.
 *
 * Client keys are only ever looked up as own properties: a query parameter or body field
 * named `__proto__`, `constructor` or `toString` is an unknown one like any other, never
 * the prototype's.
 */

const compiled = new WeakMap<TSchema, TypeCheck<TSchema>>();

function checker(schema: TSchema): TypeCheck<TSchema> {
  let check = compiled.get(schema);
  if (!check) {
    check = TypeCompiler.Compile(schema);
    compiled.set(schema, check);
  }
  return check;
}

const pathToField = (path: string): string =>
  path
    .replace(/^\//, '')
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join('.');
const joinPath = (path: string, key: string): string => (path ? `${path}.${key}` : key);

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The dotted path of the first object or array nested deeper than LIMITS.jsonDepth (the
 * value itself is level 1), walked with an explicit stack: JSON.parse builds documents of
 * any depth without trouble, but every recursive walk after it (the schema checker, the NUL
 * check, the idempotency fingerprint) would overflow the call stack on one 200,000 deep.
 */
function tooDeep(root: unknown): string | undefined {
  const stack: Array<{ value: unknown; path: string; depth: number }> = [{ value: root, path: '', depth: 1 }];
  while (stack.length > 0) {
    const { value, path, depth } = stack.pop() as { value: unknown; path: string; depth: number };
    if (typeof value !== 'object' || value === null) continue;
    if (depth > LIMITS.jsonDepth) return path;
    const keys = Object.keys(value);
    // Pushed in reverse, so the walk (and the path answered) follows document order.
    for (let i = keys.length - 1; i >= 0; i--) {
      stack.push({
        value: (value as Record<string, unknown>)[keys[i]],
        path: joinPath(path, keys[i]),
        depth: depth + 1,
      });
    }
  }
  return undefined;
}

function checkDepth(value: unknown, where: string): void {
  const field = tooDeep(value);
  if (field === undefined) return;
  throw new ApiError(
    'VALIDATION_FAILED',
    { field: field || where, max: LIMITS.jsonDepth },
    {
      message: `The ${where} nests objects and arrays more than ${LIMITS.jsonDepth} levels deep.`,
    },
  );
}

/**
 * The dotted path of the first text (value or object key) holding U+0000, which no stored
 * text may contain (PostgreSQL refuses it), so such input is malformed on every database.
 * Recursive, but only ever called on input whose depth was checked first.
 */
function firstNulText(value: unknown, path = ''): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? path : undefined;
  if (typeof value !== 'object' || value === null) return undefined;
  for (const [key, item] of Object.entries(value)) {
    const itemPath = joinPath(path, key);
    if (key.includes('\u0000')) return itemPath;
    const found = firstNulText(item, itemPath);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** Bound keywords: the error type that breaks each, and the schema keyword holding its max. */
const BOUNDS = new Map<ValueErrorType, 'maxLength' | 'maxItems' | 'maxProperties'>([
  [ValueErrorType.StringMaxLength, 'maxLength'],
  [ValueErrorType.ArrayMaxItems, 'maxItems'],
  [ValueErrorType.ObjectMaxProperties, 'maxProperties'],
]);

/** A number outside its schema's range: the answer names the range (`min`, `max`). */
const RANGE_ERRORS = new Set<ValueErrorType>([
  ValueErrorType.IntegerMinimum,
  ValueErrorType.IntegerMaximum,
  ValueErrorType.IntegerExclusiveMinimum,
  ValueErrorType.IntegerExclusiveMaximum,
  ValueErrorType.NumberMinimum,
  ValueErrorType.NumberMaximum,
  ValueErrorType.NumberExclusiveMinimum,
  ValueErrorType.NumberExclusiveMaximum,
]);

/**
 * The error that decides the answer. A union (a nullable field) reports only that no
 * variant matched; when one variant matched the value's type and failed only its bound
 * or its range, that is the real mistake.
 */
function decisiveError(error: ValueError): ValueError {
  if (error.type !== ValueErrorType.Union) return error;
  for (const variant of error.errors) {
    const first = variant.First();
    const decisive = first && decisiveError(first);
    if (decisive && (BOUNDS.has(decisive.type) || RANGE_ERRORS.has(decisive.type))) return decisive;
  }
  return error;
}

/**
 * The range of a number schema, both ends it has, as inclusive bounds: an exclusive bound
 * of an integer is the next integer in; one of a fractional number is given as it is.
 */
function rangeOf(schema: TSchema): { min?: number; max?: number } {
  const bounds = schema as {
    minimum?: unknown;
    maximum?: unknown;
    exclusiveMinimum?: unknown;
    exclusiveMaximum?: unknown;
  };
  const step = schema.type === 'integer' ? 1 : 0;
  const min =
    typeof bounds.minimum === 'number'
      ? bounds.minimum
      : typeof bounds.exclusiveMinimum === 'number'
        ? bounds.exclusiveMinimum + step
        : undefined;
  const max =
    typeof bounds.maximum === 'number'
      ? bounds.maximum
      : typeof bounds.exclusiveMaximum === 'number'
        ? bounds.exclusiveMaximum - step
        : undefined;
  return { ...(min !== undefined ? { min } : {}), ...(max !== undefined ? { max } : {}) };
}

function firstError(schema: TSchema, value: unknown): ValueError | undefined {
  const check = checker(schema);
  if (check.Check(value)) return undefined;
  const error = check.Errors(value).First();
  return error && decisiveError(error);
}

/** VALIDATION_FAILED (or the bound's own code) with the path and the limit it broke. */
function overLimit(error: ValueError, keyword: 'maxLength' | 'maxItems' | 'maxProperties'): ApiError {
  const field = pathToField(error.path);
  const max = (error.schema as Record<string, unknown>)[keyword] as number;
  const code =
    ((error.schema as unknown as Record<symbol, unknown>)[OVER_LIMIT_CODE] as ErrorCode | undefined) ??
    'VALIDATION_FAILED';
  const details = { field, max, ...(Array.isArray(error.value) ? { count: error.value.length } : {}) };
  const what = keyword === 'maxLength' ? 'characters' : keyword === 'maxItems' ? 'entries' : 'fields';
  return new ApiError(
    code,
    details,
    code === 'VALIDATION_FAILED' ? { message: `${field || 'The value'} takes at most ${max} ${what}.` } : {},
  );
}

/**
 * The own code of a failing body path: the longest `fieldCodes` key matching a prefix of
 * the path, where `*` stands for one list index (`links.*.url`). Answers the code and the
 * matched part of the path, which is what `details.field` names (`statusMapping` for a bad
 * `statusMapping.to-do`, `links.3.url` for a bad URL in a list).
 */
function ownCode(
  codes: Record<string, ErrorCode> | undefined,
  field: string,
): { code: ErrorCode; field: string } | undefined {
  if (!codes) return undefined;
  const segments = field.split('.');
  for (let length = segments.length; length > 0; length--) {
    const prefix = segments.slice(0, length);
    for (const key of Object.keys(codes)) {
      const pattern = key.split('.');
      if (
        pattern.length === length &&
        pattern.every((part, i) => part === prefix[i] || (part === '*' && /^\d+$/.test(prefix[i])))
      ) {
        return { code: codes[key], field: prefix.join('.') };
      }
    }
  }
  return undefined;
}

/**
 * The values a union of literals admits, in schema order; undefined for any other schema.
 * A nullable enum (such a union together with null) lists its literals only: null is also
 * accepted there, but `allowed` names the values a caller picks from.
 */
function enumValues(schema: TSchema): unknown[] | undefined {
  if (schema[Kind] === 'Literal') return [(schema as TLiteral).const];
  if (schema[Kind] === 'Null') return [];
  if (schema[Kind] !== 'Union') return undefined;
  const parts = (schema as TUnion).anyOf.map(enumValues);
  return parts.every((part) => part !== undefined) ? parts.flat() : undefined;
}

type FieldDetails = {
  field: string;
  allowed?: unknown[];
  min?: number;
  max?: number;
};

/**
 * `field`, plus `allowed` when the failing schema is a fixed set of values, or `min` and
 * `max` (each the schema has) when a number is out of its range.
 */
function fieldDetails(field: string, error: ValueError): FieldDetails {
  if (RANGE_ERRORS.has(error.type)) return { field, ...rangeOf(error.schema) };
  const allowed = enumValues(error.schema);
  return allowed?.length ? { field, allowed } : { field };
}

/** The message for a bad field: what it is, and what it may be when that is a fixed set or a range. */
function invalidMessage(what: string, details: FieldDetails): string {
  const values = details.allowed?.map((value) => JSON.stringify(value)).join(', ');
  if (values) return `${what} must be one of ${values}.`;
  const { min, max } = details;
  if (min !== undefined && max !== undefined) return `${what} must be from ${min} to ${max}.`;
  if (min !== undefined) return `${what} must be at least ${min}.`;
  if (max !== undefined) return `${what} must be at most ${max}.`;
  return `${what} is not valid.`;
}

function bodyFailure(op: Operation, error: ValueError): ApiError {
  const bound = BOUNDS.get(error.type);
  if (bound) return overLimit(error, bound);
  const field = pathToField(error.path);
  // A field a nested object does not know is refused like an unknown top-level one.
  if (error.type === ValueErrorType.ObjectAdditionalProperties) {
    return new ApiError('VALIDATION_FAILED', { field, unknownFields: [field] }, { message: `Unknown field ${field}.` });
  }
  const own = ownCode(op.fieldCodes, field);
  // `allowed` only when the code's field is the one that failed, not an object holding it.
  if (own) return new ApiError(own.code, own.field === field ? fieldDetails(field, error) : { field: own.field });
  const details = fieldDetails(field, error);
  return new ApiError('VALIDATION_FAILED', details, {
    message: field ? invalidMessage(`The field ${field}`, details) : 'The request body is not valid.',
  });
}

function checkBody(op: Operation, body: unknown): unknown {
  const schema = op.body as TObject | undefined;
  const present = body !== undefined && body !== null;
  if (!schema) {
    if (present && !(isPlainObject(body) && Object.keys(body).length === 0)) {
      const unknownFields = isPlainObject(body) ? Object.keys(body) : [];
      throw new ApiError('VALIDATION_FAILED', unknownFields.length ? { unknownFields } : { field: 'body' }, {
        message: 'This route takes no request body.',
      });
    }
    return undefined;
  }
  const value = present ? body : {};
  if (!isPlainObject(value))
    throw new ApiError('VALIDATION_FAILED', { field: 'body' }, { message: 'The request body must be a JSON object.' });
  if (schema[Kind] === 'Object' && schema.properties) {
    const unknownFields = Object.keys(value).filter((key) => !hasOwn(schema.properties, key));
    if (unknownFields.length) {
      throw new ApiError(
        'VALIDATION_FAILED',
        { unknownFields },
        { message: `Unknown field(s): ${unknownFields.join(', ')}.` },
      );
    }
  }
  const error = firstError(schema, value);
  if (error) throw bodyFailure(op, error);
  const nulField = firstNulText(value);
  if (nulField !== undefined) {
    const own = ownCode(op.fieldCodes, nulField);
    if (own) throw new ApiError(own.code, { field: own.field });
    throw new ApiError('VALIDATION_FAILED', { field: nulField }, { message: `The field ${nulField} is not valid.` });
  }
  return value;
}

const INTEGER_TEXT = /^[+-]?\d+$/;

/**
 * Query strings arrive as text; convert to the schema's types (limit=50 → 50, archived=true
 * → true). Value.Convert truncates "1.5" to 1, so integer parameters that are not written as
 * integers stay text and fail the check. Converts a copy: Convert may change its argument
 * in place, and the raw query is read again after it.
 */
function convertQuery(schema: TSchema, raw: Record<string, unknown>): unknown {
  const properties = (schema as TObject).properties ?? {};
  const value = Value.Convert(schema, Object.fromEntries(Object.entries(raw))) as Record<string, unknown>;
  for (const [name, property] of Object.entries(properties)) {
    const text = hasOwn(raw, name) ? raw[name] : undefined;
    if (property.type === 'integer' && typeof text === 'string' && !INTEGER_TEXT.test(text)) value[name] = text;
  }
  return value;
}

function paramsFailure(where: 'query parameter' | 'path parameter', error: ValueError): ApiError {
  const bound = BOUNDS.get(error.type);
  if (bound) return overLimit(error, bound);
  const details = fieldDetails(pathToField(error.path), error);
  return new ApiError('VALIDATION_FAILED', details, {
    message: invalidMessage(`The ${where} ${details.field}`, details),
  });
}

/**
 * A misspelt filter (`projectkey`) must not pass for no filter at all: unknown names are
 * refused. `coerce`: the values are query-string text to convert to the schema's types;
 * without it they must already have them (MCP arguments are JSON: "true" is not true).
 */
function checkQuery(schema: TSchema | undefined, query: unknown, coerce: boolean): unknown {
  const raw = isPlainObject(query) ? query : {};
  const properties = (schema as TObject | undefined)?.properties ?? {};
  const unknownFields = Object.keys(raw).filter((name) => !hasOwn(properties, name));
  if (unknownFields.length) {
    throw new ApiError(
      'VALIDATION_FAILED',
      { unknownFields },
      { message: `Unknown query parameter(s): ${unknownFields.join(', ')}.` },
    );
  }
  if (!schema) return {};
  const value = coerce ? convertQuery(schema, raw) : { ...raw };
  const error = firstError(schema, value);
  if (error) throw paramsFailure('query parameter', error);
  const field = firstNulText(value);
  if (field !== undefined)
    throw new ApiError('VALIDATION_FAILED', { field }, { message: `The query parameter ${field} is not valid.` });
  return value;
}

function checkParams(schema: TSchema | undefined, params: unknown): Record<string, unknown> {
  const value = isPlainObject(params) ? params : {};
  const error = schema ? firstError(schema, value) : undefined;
  if (error) throw paramsFailure('path parameter', error);
  const field = firstNulText(value);
  if (field !== undefined)
    throw new ApiError('VALIDATION_FAILED', { field }, { message: `The path parameter ${field} is not valid.` });
  return value;
}

export interface ParseOptions {
  /** Convert query values from text (HTTP query strings; the default) rather than take them as typed. */
  coerceQuery?: boolean;
}

export function parseInput(
  op: Operation,
  raw: { params?: unknown; query?: unknown; body?: unknown },
  { coerceQuery = true }: ParseOptions = {},
): OperationInput<any, any, any> {
  // Depth first: every later check walks the input recursively.
  checkDepth(raw.params, 'path');
  checkDepth(raw.query, 'query');
  checkDepth(raw.body, 'body');
  return {
    params: checkParams(op.params, raw.params),
    query: checkQuery(op.query, raw.query, coerceQuery),
    body: checkBody(op, raw.body),
  };
}
