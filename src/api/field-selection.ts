import { Type, type TObject } from '@sinclair/typebox';
import { ApiError } from '../core/errors.js';
import type { Operation, Result } from '../operations/define.js';
import { commonParameter, serviceCheck } from '../operations/schema-helpers.js';

/**
 * `fields=` on reads and lists: a client names the fields it needs (`fields=issueKey,title,
 * statusKey`) and each record of the answer holds only those, so an agent pays for what
 * it reads. Without it, the answer is the full record. It applies to every GET whose
 * answer is one record or one list of records (`{ issue }`, `{ issues, pageInfo }`); the
 * list's pageInfo stays whole. A reference's short name selects both of its forms:
 * `status` is statusId and statusKey, `project` is projectId and projectKey.
 */

interface RecordShape {
  /** The answer's key holding the record(s): `issue`, `issues`. */
  container: string;
  list: boolean;
  /** The record's fields, in the order the record shows them. */
  names: string[];
}

/** Longer than any honest list of field names; a bound on client input like any other. */
const MAX_FIELDS_LENGTH = 2000;

function recordShape(op: Operation): RecordShape | undefined {
  const answer = op.response as TObject | undefined;
  if (op.method !== 'GET' || !answer?.properties) return undefined;
  const containers = Object.keys(answer.properties).filter((key) => key !== 'pageInfo');
  if (containers.length !== 1) return undefined;
  const container = containers[0];
  const value = answer.properties[container];
  const list = value.type === 'array';
  const record = (list ? value.items : value) as TObject | undefined;
  if (record?.type !== 'object' || !record.properties) return undefined;
  return { container, list, names: Object.keys(record.properties) };
}

/** The fields a name selects: itself, or a reference's id and key forms. */
function expand(name: string, names: Set<string>): string[] {
  if (names.has(name)) return [name];
  return [`${name}Id`, `${name}Key`].filter((field) => names.has(field));
}

/** Every name `fields` takes for this record: its fields, and its references' short names. */
function selectableNames(shape: RecordShape): string[] {
  const known = new Set(shape.names);
  const short = shape.names.flatMap((name) => {
    const base = /^(.+?)(?:Id|Key)$/.exec(name)?.[1];
    return base && !known.has(base) ? [base] : [];
  });
  return [...new Set([...shape.names, ...short])];
}

/**
 * The `fields` values parseFields takes, as a pattern for the OpenAPI document: one or more
 * selectable names separated by commas, blanks around a name and empty entries skipped.
 */
function fieldsPattern(shape: RecordShape): string {
  const name = `(?:${selectableNames(shape).join('|')})`;
  return `^[\\s,]*${name}(?:\\s*,[\\s,]*${name})*[\\s,]*$`;
}

function parseFields(value: string, shape: RecordShape): Set<string> {
  const known = new Set(shape.names);
  const requested = value
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const unknownFields = requested.filter((name) => expand(name, known).length === 0);
  if (requested.length === 0 || unknownFields.length > 0) {
    throw new ApiError(
      'VALIDATION_FAILED',
      { field: 'fields', unknownFields, allowed: shape.names },
      {
        message:
          requested.length === 0
            ? 'fields names no field.'
            : `fields names what this record does not have: ${unknownFields.join(', ')}.`,
        suggestion: 'Name fields from details.allowed, separated by commas, or leave fields out for the full record.',
      },
    );
  }
  return new Set(requested.flatMap((name) => expand(name, known)));
}

function pick(record: Record<string, unknown>, selected: Set<string>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([name]) => selected.has(name)));
}

function trimmed(result: Result, shape: RecordShape, selected: Set<string>): Result {
  const body = result.body as Record<string, unknown>;
  const value = body[shape.container];
  if (value === null || value === undefined) return result;
  if (shape.list) {
    return {
      ...result,
      body: { ...body, [shape.container]: (value as Array<Record<string, unknown>>).map((r) => pick(r, selected)) },
    };
  }
  const record = value as Record<string, unknown>;
  // The ETag of a single record keeps its version even when the selection leaves it out.
  const version = typeof record.version === 'number' ? record.version : undefined;
  return { ...result, body: { ...body, [shape.container]: pick(record, selected) }, ...(version ? { version } : {}) };
}

/** The operation with `fields` among its query parameters (and so its MCP arguments), when its answer has records. */
export function withFieldSelection(op: Operation): Operation {
  const shape = recordShape(op);
  const { run } = op;
  if (!shape || !run) return op;
  const query = op.query as TObject | undefined;
  // The pattern is parseFields' check (its answer names the unknown fields), shown in the document.
  const fields = Type.Optional(
    commonParameter(
      serviceCheck(
        Type.String({
          maxLength: MAX_FIELDS_LENGTH,
          description:
            'Comma-separated fields each record keeps (default: all). ' +
            "A reference's short name selects its id and key (status: statusId, statusKey). " +
            `One of: ${shape.names.join(', ')}.`,
        }),
        { pattern: fieldsPattern(shape) },
      ),
    ),
  );
  return {
    ...op,
    steps: undefined,
    query: Type.Object({ ...(query?.properties ?? {}), fields }),
    run: async (ctx, input) => {
      const { fields: value, ...rest } = input.query as { fields?: string };
      const selected = value === undefined ? undefined : parseFields(value, shape);
      const result = await run(ctx, { ...input, query: rest });
      return selected && result.status === 200 ? trimmed(result, shape, selected) : result;
    },
  };
}
