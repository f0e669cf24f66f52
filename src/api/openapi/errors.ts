import type { TObject } from '@sinclair/typebox';
import { ERROR_CATALOG, type ErrorCode } from '../../core/errors.js';
import { takesVersionCondition, type Operation } from '../../operations/define.js';
import type { JsonSchema } from './json-schema.js';

/**
 * The error side of the document: one `ErrorCode` enum of every code the server can
 * answer, the `Error` body, and for each operation the codes it documents, grouped by
 * status. An operation documents the codes every route can answer (authentication, rate
 * limit, validation, outages), those of its kind (a body, a page, a create, a write), the
 * codes of its fields (`fieldCodes`) and its own domain codes (`errors`). The
 * response-conformance test fails on any answer whose code its operation does not document.
 */

const EVERY_ROUTE: ErrorCode[] = [
  'VALIDATION_FAILED',
  'UNAUTHORIZED',
  'REQUEST_TIMEOUT',
  'HEADERS_TOO_LARGE',
  'RATE_LIMITED',
  'INTERNAL_ERROR',
  'DATABASE_UNAVAILABLE',
  'SERVER_SHUTTING_DOWN',
];
const WITH_BODY: ErrorCode[] = ['INVALID_JSON', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'];
const PAGED: ErrorCode[] = ['INVALID_CURSOR'];
// TOKEN_READ_ONLY: a read-only credential calling any write (http/operations.ts).
const WRITE: ErrorCode[] = ['STORAGE_FULL', 'TOKEN_READ_ONLY'];
const CREATE: ErrorCode[] = ['IDEMPOTENCY_KEY_REUSED', 'IDEMPOTENCY_KEY_IN_USE'];

/** The code answered when the resource a path parameter names is not there (or not visible). */
const NOT_FOUND_BY_PARAM: Record<string, ErrorCode> = {
  teamKey: 'TEAM_NOT_FOUND',
  projectKey: 'PROJECT_NOT_FOUND',
  projectId: 'PROJECT_NOT_FOUND',
  issueKey: 'ISSUE_NOT_FOUND',
  issueId: 'ISSUE_NOT_FOUND',
  commentId: 'COMMENT_NOT_FOUND',
  subtaskId: 'SUBTASK_NOT_FOUND',
  milestoneId: 'ISSUE_CONTAINER_MILESTONE_NOT_FOUND',
  meetingId: 'MEETING_NOT_FOUND',
  presetId: 'OWNER_NOT_FOUND',
  statusId: 'AGENDA_STATUS_NOT_FOUND',
  linkId: 'MEETING_LINK_NOT_FOUND',
  agendaItemId: 'AGENDA_ITEM_NOT_FOUND',
  agendaGroupId: 'AGENDA_GROUP_NOT_FOUND',
  ownerId: 'OWNER_NOT_FOUND',
  groupId: 'DISCUSSION_GROUP_NOT_FOUND',
  topicId: 'DISCUSSION_TOPIC_NOT_FOUND',
  webhookId: 'WEBHOOK_NOT_FOUND',
};

const pathParameters = (op: Operation): string[] => [...op.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);

/** Every code the operation can answer, in a stable order. */
export function errorCodesOf(op: Operation): ErrorCode[] {
  const query = op.query as TObject | undefined;
  const codes = new Set<ErrorCode>([
    ...EVERY_ROUTE,
    ...(op.body ? WITH_BODY : []),
    ...(query?.properties && 'cursor' in query.properties ? PAGED : []),
    ...(op.method === 'GET' ? [] : WRITE),
    ...(op.method === 'POST' || op.takesIdempotencyKey ? CREATE : []),
    ...(takesVersionCondition(op) ? (['PRECONDITION_FAILED'] as ErrorCode[]) : []),
    ...pathParameters(op).flatMap((name) => NOT_FOUND_BY_PARAM[name] ?? []),
    ...Object.values(op.fieldCodes ?? {}),
    ...(op.errors ?? []),
  ]);
  const order = Object.keys(ERROR_CATALOG);
  return [...codes].sort((a, b) => order.indexOf(a) - order.indexOf(b));
}

export const ERROR_COMPONENTS: Record<string, JsonSchema> = {
  ErrorCode: {
    type: 'string',
    enum: Object.keys(ERROR_CATALOG),
    description: 'Machine-readable error code; branch on this, never on the message.',
  },
  Error: {
    type: 'object',
    required: ['error', 'code', 'details', 'suggestion'],
    properties: {
      error: { type: 'string', description: 'Human-readable message.' },
      code: { $ref: '#/components/schemas/ErrorCode' },
      details: {
        type: 'object',
        additionalProperties: true,
        description: 'Context: the offending field, id or key, and what applies of the fields below.',
        properties: {
          field: { type: 'string', description: 'The offending field, as a dotted path (`links.3.url`).' },
          unknownFields: {
            type: 'array',
            items: { type: 'string' },
            description: 'Fields or parameters the operation does not know.',
          },
          max: {
            type: 'integer',
            description: 'The bound the value broke (characters, entries or levels), or the largest number accepted.',
          },
          min: { type: 'integer', description: 'The smallest number accepted, when a number is out of its range.' },
          count: { type: 'integer', description: 'How many entries the list had.' },
          index: { type: 'integer', description: 'Bulk writes: the position (from 0) of the item that failed.' },
          currentVersion: {
            type: 'integer',
            description: 'PRECONDITION_FAILED: the version the record has now.',
          },
          current: {
            type: 'object',
            additionalProperties: true,
            description: 'PRECONDITION_FAILED: the record as it is now, as its GET shows it.',
          },
          allowed: {
            type: 'array',
            items: { type: ['string', 'number', 'boolean'] },
            description: 'The values the field accepts.',
          },
        },
      },
      suggestion: { type: 'string', description: 'How to recover.' },
    },
  },
};

const RETRY_AFTER = {
  'Retry-After': {
    description: 'Seconds to wait before retrying.',
    schema: { type: 'integer', minimum: 0 },
  },
};

const exampleDetails = (op: Operation, code: ErrorCode): Record<string, unknown> => {
  const field = Object.entries(op.fieldCodes ?? {}).find(([, fieldCode]) => fieldCode === code)?.[0];
  if (field) return { field };
  if (code === 'VALIDATION_FAILED') return { field: 'limit' };
  return {};
};

const STANDARD = new Set<ErrorCode>([...EVERY_ROUTE, ...WITH_BODY, ...PAGED, ...WRITE, ...CREATE]);

const componentName = (codes: ErrorCode[]): string =>
  codes
    .map((code) =>
      code
        .toLowerCase()
        .split('_')
        .map((part) => part[0].toUpperCase() + part.slice(1))
        .join(''),
    )
    .join('Or');

function errorResponse(op: Operation, status: number, codes: ErrorCode[]): Record<string, unknown> {
  return {
    description: codes.map((code) => `\`${code}\`: ${ERROR_CATALOG[code].message}`).join('\n\n'),
    ...(status === 429 || status === 503 || status === 409 ? { headers: RETRY_AFTER } : {}),
    content: {
      'application/json': {
        schema: { $ref: '#/components/schemas/Error' },
        examples: Object.fromEntries(
          codes.map((code) => [
            code,
            {
              summary: ERROR_CATALOG[code].message,
              value: {
                error: ERROR_CATALOG[code].message,
                code,
                details: exampleDetails(op, code),
                suggestion: ERROR_CATALOG[code].suggestion,
              },
            },
          ]),
        ),
      },
    },
  };
}

/**
 * The operation's error answers, one response per status, each code with an example. A
 * status whose codes are all ones every route of a kind shares (401, 429, 503…) refers to
 * one shared response in `components.responses`, which keeps the document small.
 */
export function errorResponses(op: Operation, shared: Record<string, unknown>): Record<string, unknown> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorCodesOf(op)) {
    const { status } = ERROR_CATALOG[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: Record<string, unknown> = {};
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    if (!codes.every((code) => STANDARD.has(code)) || codes.includes('VALIDATION_FAILED')) {
      responses[String(status)] = errorResponse(op, status, codes);
      continue;
    }
    const name = componentName(codes);
    shared[name] ??= errorResponse(op, status, codes);
    responses[String(status)] = { $ref: `#/components/responses/${name}` };
  }
  return responses;
}
