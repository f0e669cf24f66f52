import { Kind, type TObject, type TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { Value } from '@sinclair/typebox/value';
import { ApiError } from '../core/errors.js';
import type { Operation, OperationInput } from './define.js';

/**
 * Turns raw params, query and body into an operation's typed input, or throws the code the
 * contract asks for: unknown body fields → VALIDATION_FAILED with `unknownFields`; a bad
 * field with its own code (fieldCodes) → that code; any other bad field → VALIDATION_FAILED
 * with `field` as a dotted path.
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

const pathToField = (path: string): string => path.replace(/^\//, '').split('/').join('.');

function firstFailure(schema: TSchema, value: unknown): string | undefined {
  const check = checker(schema);
  if (check.Check(value)) return undefined;
  const error = check.Errors(value).First();
  return error ? pathToField(error.path) : '';
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The dotted path of the first text (value or object key) holding U+0000, which no stored
 * text may contain (PostgreSQL refuses it), so such input is malformed on every database.
 */
function firstNulText(value: unknown, path = ''): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? path : undefined;
  if (typeof value !== 'object' || value === null) return undefined;
  for (const [key, item] of Object.entries(value)) {
    const itemPath = path ? `${path}.${key}` : key;
    if (key.includes('\u0000')) return itemPath;
    const found = firstNulText(item, itemPath);
    if (found !== undefined) return found;
  }
  return undefined;
}

function checkBody(op: Operation, body: unknown): unknown {
  const schema = op.body as TObject | undefined;
  const present = body !== undefined && body !== null;
  if (!schema) {
    if (present && !(isPlainObject(body) && Object.keys(body).length === 0)) {
      const unknownFields = isPlainObject(body) ? Object.keys(body) : [];
      throw new ApiError('VALIDATION_FAILED', unknownFields.length ? { unknownFields } : { field: 'body' }, { message: 'This route takes no request body.' });
    }
    return undefined;
  }
  const value = present ? body : {};
  if (!isPlainObject(value)) throw new ApiError('VALIDATION_FAILED', { field: 'body' }, { message: 'The request body must be a JSON object.' });
  if (schema[Kind] === 'Object' && schema.properties) {
    const unknownFields = Object.keys(value).filter((key) => !(key in schema.properties));
    if (unknownFields.length) {
      throw new ApiError('VALIDATION_FAILED', { unknownFields }, { message: `Unknown field(s): ${unknownFields.join(', ')}.` });
    }
  }
  const field = firstFailure(schema, value) ?? firstNulText(value);
  if (field !== undefined) {
    const topLevel = field.split('.')[0];
    const code = op.fieldCodes?.[field] ?? op.fieldCodes?.[topLevel];
    if (code) throw new ApiError(code, { field: topLevel });
    throw new ApiError('VALIDATION_FAILED', { field }, { message: field ? `The field ${field} is not valid.` : 'The request body is not valid.' });
  }
  return value;
}

const INTEGER_TEXT = /^[+-]?\d+$/;

/**
 * Query strings arrive as text; convert to the schema's types (limit=50 → 50, archived=true
 * → true). Value.Convert truncates "1.5" to 1, so integer parameters that are not written as
 * integers stay text and fail the check.
 */
function convertQuery(schema: TSchema, raw: Record<string, unknown>): unknown {
  const value = Value.Convert(schema, { ...raw }) as Record<string, unknown>;
  for (const [name, property] of Object.entries((schema as TObject).properties ?? {})) {
    const text = raw[name];
    if (property.type === 'integer' && typeof text === 'string' && !INTEGER_TEXT.test(text)) value[name] = text;
  }
  return value;
}

function checkQuery(schema: TSchema | undefined, query: unknown): unknown {
  const raw = isPlainObject(query) ? query : {};
  if (!schema) return {};
  const value = convertQuery(schema, raw);
  const field = firstFailure(schema, value) ?? firstNulText(value);
  if (field !== undefined) throw new ApiError('VALIDATION_FAILED', { field }, { message: `The query parameter ${field} is not valid.` });
  return value;
}

function checkParams(params: unknown): Record<string, unknown> {
  const value = isPlainObject(params) ? params : {};
  const field = firstNulText(value);
  if (field !== undefined) throw new ApiError('VALIDATION_FAILED', { field }, { message: `The path parameter ${field} is not valid.` });
  return value;
}

export function parseInput(op: Operation, raw: { params?: unknown; query?: unknown; body?: unknown }): OperationInput<any, any, any> {
  return { params: checkParams(raw.params), query: checkQuery(op.query, raw.query), body: checkBody(op, raw.body) };
}
