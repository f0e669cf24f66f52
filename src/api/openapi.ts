import type { TObject, TSchema } from '@sinclair/typebox';
import { takesVersionCondition, type Operation } from '../operations/define.js';
import { IF_MATCH_PATTERN, IF_NONE_MATCH_PATTERN, MAX_CONDITION_LENGTH } from '../operations/entity-tags.js';
import { componentNames } from './openapi/component-names.js';
import { ERROR_COMPONENTS, errorResponses } from './openapi/errors.js';
import { ExampleMaker } from './openapi/examples.js';
import { SchemaConverter, type JsonSchema } from './openapi/json-schema.js';
import { webhookSection } from './openapi/webhooks.js';

/**
 * The OpenAPI 3.1 document, generated from the operation catalog: each operation's
 * parameters, body (with the fields it requires), success answer and documented error
 * answers, examples made from the same schemas, named component schemas for every
 * resource and envelope, and the webhook events. Built once per process.
 */

const pascal = (id: string): string =>
  id
    .split('_')
    .map((part) => part[0].toUpperCase() + part.slice(1))
    .join('');

function parametersOf(converter: SchemaConverter, schema: TSchema | undefined, location: 'path' | 'query') {
  const object = schema as TObject | undefined;
  if (!object?.properties) return [];
  const required = new Set(object.required ?? []);
  return Object.entries(object.properties).map(([name, property]) => ({
    name,
    in: location,
    required: location === 'path' || required.has(name),
    ...(property.description ? { description: property.description } : {}),
    schema: converter.property(name, property),
  }));
}

const IDEMPOTENCY_KEY = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Replays the first result of a create for 24 hours (same credential, same request); 1–255 visible ASCII characters.',
  schema: { type: 'string', minLength: 1, maxLength: 255 },
};

const IF_NONE_MATCH = {
  name: 'If-None-Match',
  in: 'header',
  required: false,
  description:
    'The ETag of the answer you hold: when it is still current, the answer is 304 with no body. ' +
    'At most 50 comma-separated entity tags (or `*`).',
  schema: { type: 'string', maxLength: MAX_CONDITION_LENGTH, pattern: IF_NONE_MATCH_PATTERN },
};

const IF_MATCH = {
  name: 'If-Match',
  in: 'header',
  required: false,
  description:
    'The ETag of the record you read (or `"7"` for version 7, or `*`): when the record has changed since, ' +
    'nothing is written and the answer is 412 PRECONDITION_FAILED with the current record. ' +
    'At most 50 comma-separated quoted entity tags; a value that is not `*` or such a list is refused (400).',
  schema: { type: 'string', maxLength: MAX_CONDITION_LENGTH, pattern: IF_MATCH_PATTERN },
};

const ETAG = {
  ETag: {
    description:
      'Strong entity tag of this answer; a single record\'s starts with its version (`"7-…"`). ' +
      'Send it back in If-None-Match (reads) or If-Match (writes).',
    schema: { type: 'string' },
  },
};

const NOT_MODIFIED = { description: 'Not Modified: the answer is the one whose ETag you sent.', headers: ETAG };

const CREATED_HEADERS = {
  Location: { description: 'Path of the created resource.', schema: { type: 'string' } },
  'Idempotent-Replayed': {
    description: '`true` when this is the stored answer of an earlier request with the same Idempotency-Key.',
    schema: { type: 'string', enum: ['true'] },
  },
};

const TAG_DESCRIPTIONS: Record<string, string> = {
  Discovery: 'Who the credential is, and the workspace directory: teams, users, statuses, tags.',
  Projects: 'Projects of a team; every issue belongs to one.',
  Issues: 'Issues, their title history, comments, links and attachments.',
  'Sub-tasks': 'Checklist items inside an issue, linkable and promotable to issues.',
  'Issue containers': 'Epics and other containers that group issues over a time window.',
  Milestones: 'Dated checkpoints of a container, with status and comments.',
  Meetings: 'Meetings, their agenda items and groups, owners and settings.',
  Discussions: 'Stakeholder discussion groups and topics, convertible to issues.',
  Webhooks: 'Subscriptions that receive signed events, and their delivery history.',
  Events: 'The change feed: the events webhooks deliver, read by polling from a cursor.',
  'Webhook events': 'What wsx POSTs to a subscription: Standard Webhooks signed JSON events.',
};

/** Navigation names the operation id does not spell well on its own (see shortSummary). */
const SHORT_SUMMARIES: Record<string, string> = {
  whoami: 'Verify the credential',
  get_project_by_key: 'Get a project by key',
  get_issue_by_key: 'Get an issue by key',
  list_issue_evolutions: 'List title evolutions',
  link_issues: 'Link two issues',
  unlink_issues: 'Unlink two issues',
  link_subtasks: 'Link two sub-tasks',
  unlink_subtasks: 'Unlink two sub-tasks',
  link_meeting: 'Link work to a meeting',
  unlink_meeting: 'Unlink work from a meeting',
  link_agenda_item: 'Link work to an agenda item',
  unlink_agenda_item: 'Unlink work from an agenda item',
  create_agenda_item_tasks: 'Create a task from an agenda item',
  list_events: 'Read the change feed',
};

/**
 * The operation's name in navigation (OpenAPI `summary`): a few words, from its id
 * (`list_issues` → "List issues") unless SHORT_SUMMARIES has better ones. The sentence the
 * operation declares as its summary opens the `description`.
 */
export function shortSummary(op: Pick<Operation, 'id'>): string {
  const named = SHORT_SUMMARIES[op.id];
  if (named) return named;
  const words = op.id
    .replace(/subtask/g, 'sub-task')
    .split('_')
    .join(' ');
  return words[0].toUpperCase() + words.slice(1);
}

function successStatus(op: Operation): string {
  return String(op.successStatus ?? (op.method === 'POST' ? 201 : op.method === 'DELETE' ? 204 : 200));
}

function operationObject(
  op: Operation,
  converter: SchemaConverter,
  examples: ExampleMaker,
  sharedResponses: Record<string, unknown>,
): Record<string, unknown> {
  const status = successStatus(op);
  const name = pascal(op.id);
  const parameters: Array<Record<string, unknown>> = [
    ...parametersOf(converter, op.params, 'path'),
    ...parametersOf(converter, op.query, 'query'),
  ];
  if (op.method === 'POST' || op.takesIdempotencyKey) parameters.push(IDEMPOTENCY_KEY);
  if (op.method === 'GET') parameters.push(IF_NONE_MATCH);
  if (takesVersionCondition(op)) parameters.push(IF_MATCH);

  let requestBody: Record<string, unknown> | undefined;
  if (op.body) {
    const body = converter.request(op.body, `${name}Request`);
    const bodySchema = converter.components[`${name}Request`];
    const required = [...new Set([...((bodySchema.required as string[]) ?? []), ...(op.requiredFields ?? [])])];
    if (required.length) bodySchema.required = required;
    requestBody = {
      required: required.length > 0,
      content: { 'application/json': { schema: body, example: examples.request(bodySchema, required, op.id) } },
    };
  }

  let success: Record<string, unknown> = { description: 'No content' };
  if (status !== '204') {
    if (!op.response) throw new Error(`Operation ${op.id} documents no response schema.`);
    const schema = converter.convert(op.response);
    const tagged = op.method === 'GET' || op.resource !== undefined;
    const headers = { ...(status === '201' ? CREATED_HEADERS : {}), ...(tagged ? ETAG : {}) };
    success = {
      description: 'Success',
      ...(Object.keys(headers).length ? { headers } : {}),
      content: { 'application/json': { schema, example: examples.of(schema) } },
    };
  }

  const existing = op.answersExisting
    ? {
        '200': { ...success, description: 'Already there: nothing was created; the answer names the existing record.' },
      }
    : {};
  return {
    operationId: op.id,
    summary: shortSummary(op),
    description: op.description ? `${op.summary}\n\n${op.description}` : op.summary,
    tags: [op.tag],
    ...(parameters.length ? { parameters } : {}),
    ...(requestBody ? { requestBody } : {}),
    responses: {
      ...existing,
      [status]: success,
      ...(op.method === 'GET' ? { '304': NOT_MODIFIED } : {}),
      ...errorResponses(op, sharedResponses),
    },
  };
}

export function buildOpenApiDocument(operations: Operation[]): Record<string, unknown> {
  const converter = new SchemaConverter(componentNames());
  Object.assign(converter.components, ERROR_COMPONENTS);
  const examples = new ExampleMaker(converter.components);
  const paths: Record<string, Record<string, unknown>> = {};
  const responses: Record<string, unknown> = {};
  for (const op of operations) {
    (paths[op.path] ??= {})[op.method.toLowerCase()] = operationObject(op, converter, examples, responses);
  }
  const webhooks = webhookSection(converter);
  const tags = [...new Set(operations.map((op) => op.tag)), 'Webhook events'].map((name) => ({
    name,
    description: TAG_DESCRIPTIONS[name] ?? name,
  }));
  const schemas: Record<string, JsonSchema> = Object.fromEntries(
    Object.entries(converter.components).sort(([a], [b]) => a.localeCompare(b)),
  );
  return {
    openapi: '3.1.0',
    info: {
      title: 'wsx — Workspace Execution External API',
      version: '1.0.0',
      description:
        'JSON API for automation agents and backend clients of one workspace. ' +
        'Send a workspace token (svc_pat_…) or an OAuth access token (svc_oat_…) as ' +
        '`Authorization: Bearer <token>` (preferred), `Authorization: Token <token>` or `X-API-Key: <token>`. ' +
        'Errors are `{ error, code, details, suggestion }`; branch on `code`.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: '/', description: 'This server' }],
    security: [{ bearer: [] }, { token: [] }, { apiKey: [] }],
    tags,
    paths,
    webhooks,
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description:
            'Preferred: `Authorization: Bearer <token>`, with a workspace token ' +
            '(svc_pat_…, from the workspace file or `wsx token create`) ' +
            'or an OAuth access token (svc_oat_…, acting for a person).',
        },
        token: {
          type: 'apiKey',
          in: 'header',
          name: 'Authorization',
          description: 'The same tokens as `Authorization: Token <token>` (the value includes the word Token).',
        },
        apiKey: {
          type: 'apiKey',
          in: 'header',
          name: 'X-API-Key',
          description: 'The same tokens in `X-API-Key: <token>`.',
        },
      },
      schemas,
      responses,
    },
  };
}
