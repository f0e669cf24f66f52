import { typesOf, type JsonSchema } from './json-schema.js';

/**
 * Example values made from the document's own schemas, so every operation shows a request
 * and an answer that have the real shape (a test validates each example against its
 * schema, and another sends each request example to a seeded server). Values come from the
 * field's name where the name says what it holds (an issueId looks like `iss_…`, an
 * issueKey like `ENG-42`, an email like an email), else from its type and bounds. A request
 * example is one the server takes: its time ranges end after they start, it sends one of
 * two fields that exclude each other, and what a generic value cannot say right comes from
 * the operation's own example (REQUEST_EXAMPLES).
 */

const ULID = '01jd7q8x3k2m9v5t6w4y0z1a2b';

/** The id prefix each id field's records have (core/ids.ts). */
const ID_PREFIXES: Record<string, string> = {
  issueId: 'iss',
  targetIssueId: 'iss',
  convertedIssueId: 'iss',
  migratedIssueId: 'iss',
  parentIssueId: 'iss',
  projectId: 'prj',
  sourceProjectId: 'prj',
  teamId: 'team',
  defaultTeamId: 'team',
  statusId: 'st',
  userId: 'usr',
  memberId: 'usr',
  reporterId: 'usr',
  ownerId: 'usr',
  commentId: 'cmt',
  parentCommentId: 'cmt',
  linkId: 'lnk',
  milestoneId: 'ms',
  issueContainerId: 'ic',
  epicId: 'ic',
  meetingId: 'mtg',
  agendaItemId: 'agi',
  agendaGroupId: 'agp',
  agendaStatusId: 'ags',
  orderedStatusId: 'ags',
  topicId: 'top',
  groupId: 'dgr',
  webhookId: 'whk',
  deliveryId: 'dlv',
  attachmentId: 'att',
  evolutionId: 'evo',
  subtaskId: 'sub',
  targetSubtaskId: 'sub',
  workspaceId: 'ws',
  presetId: 'pre',
};

const NAMED_TEXT: Record<string, string> = {
  issueKey: 'ENG-42',
  targetIssueKey: 'ENG-7',
  targetKey: 'ENG-7',
  projectKey: 'API',
  teamKey: 'ENG',
  statusKey: 'in-progress',
  assigneeId: 'api-token:triage-bot',
  title: 'Retry webhook deliveries with backoff',
  name: 'Public API',
  externalName: 'Dana Reyes',
  description: 'Receivers that time out are retried with exponential backoff.',
  notes: 'Agreed to retry with backoff; Dana checks the receiver logs.',
  body: 'Reproduced on the staging receiver; fix under review.',
  reason: 'Clarified the scope after triage.',
  type: 'planning',
  email: 'alice@example.com',
  handle: 'alice',
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  nextCursor: 'eyJrIjoiMDFqZDdxOHgzayJ9.c2lnbmF0dXJl',
  cursor: 'eyJrIjoiMDFqZDdxOHgzayJ9.c2lnbmF0dXJl',
  slug: 'acme',
  q: 'webhook',
  tag: 'bug',
};

const FORMATTED: Record<string, string> = {
  'date-time': '2026-11-24T09:30:00.000Z',
  date: '2026-12-01',
  uri: 'https://hooks.example.com/wsx',
};

/** Ends of a range: after the start the format's generic value stands for. */
const RANGE_ENDS: Record<string, string> = {
  endsAt: '2026-11-24T10:15:00.000Z',
  dueDate: '2026-12-15',
  endDate: '2026-12-15',
};

/**
 * Fields a request example leaves out although the schema has them: `durationDays` is
 * what startDate and dueDate already give (the server refuses the three disagreeing).
 */
const DERIVED = new Set(['durationDays']);

/**
 * Request examples a generic value cannot get right, by operation id: the values replace
 * the generic ones (a key of `undefined` leaves the field out). A link names one target
 * kind; a promotion maps sub-task statuses to the project's status keys; an owner is one
 * of a user, a preset or an external person.
 */
const REQUEST_EXAMPLES: Record<string, Record<string, unknown>> = {
  // A new project takes a key of its own: API is the project the other examples use.
  create_project: { name: 'Billing', projectKey: 'BILL' },
  update_project: { name: 'Public API v2', projectKey: undefined, teamKey: undefined },
  // A retitle names a title the issue does not have yet.
  evolve_issue_title: { title: 'Retry webhook deliveries with exponential backoff' },
  create_external_owner_preset: { name: 'Partner contact' },
  update_external_owner_preset: { name: 'Partner contact (EU)' },
  // Agenda status names are unique in the workspace.
  create_agenda_status: { name: 'Needs decision' },
  update_agenda_status: { name: 'Blocked on partner' },
  create_agenda_group: { name: 'Decisions' },
  update_agenda_group: { name: 'Decisions and follow-ups' },
  // An agenda item's status is an agenda status (ags_…), not an issue status.
  create_agenda_item: { statusId: `ags_${ULID}` },
  update_agenda_item: { statusId: `ags_${ULID}` },
  create_discussion_group: { name: 'Platform guild' },
  update_discussion_group: { name: 'Platform and API guild' },
  promote_subtask: { statusMapping: { 'to-do': 'todo', 'in-progress': 'in-progress', done: 'done' } },
  link_meeting: { targetType: 'issue', targetKey: 'ENG-7', teamKey: undefined },
  link_agenda_item: { targetType: 'issue', targetKey: 'ENG-7', teamKey: undefined },
  add_agenda_item_owner: {
    userId: undefined,
    presetId: undefined,
    externalName: 'Dana Reyes',
    externalEmail: 'dana@partner.example',
  },
  create_discussion_topic: { links: [{ targetType: 'issue', targetKey: 'ENG-7' }] },
  update_discussion_topic: { links: [{ targetType: 'issue', targetKey: 'ENG-7' }] },
  create_webhook: { events: ['issue.created', 'issue.updated'], active: true },
  update_webhook: { events: ['issue.created', 'issue.updated'], active: true },
  rotate_webhook_secret: { overlapSeconds: 3600 },
};

const MAX_DEPTH = 12;

/** The type an example takes of a schema with a type list: the first that is not null. */
const typeOf = (schema: JsonSchema): string | undefined => {
  const types = typesOf(schema);
  return types.find((type) => type !== 'null') ?? types[0];
};

export class ExampleMaker {
  constructor(private readonly components: Record<string, JsonSchema>) {}

  /** An example of the schema; `field` is the property it is the value of. */
  of(schema: JsonSchema, field = '', depth = 0, request = false): unknown {
    if (depth > MAX_DEPTH) return null;
    if (typeof schema.$ref === 'string') return this.of(this.resolve(schema.$ref), field, depth + 1, request);
    if ('const' in schema) return schema.const;
    if (Array.isArray(schema.enum)) return schema.enum.find((value) => value !== null) ?? null;
    if (Array.isArray(schema.anyOf)) {
      const branches = schema.anyOf as JsonSchema[];
      return this.of(branches.find((b) => b.type !== 'null') ?? branches[0], field, depth + 1, request);
    }
    switch (typeOf(schema)) {
      case 'object':
        return request ? this.fields(schema, depth + 1) : this.object(schema, depth);
      case 'array': {
        if (schema.maxItems === 0 || !schema.items) return [];
        return [this.of(schema.items as JsonSchema, singular(field), depth + 1, request)];
      }
      case 'string':
        return this.text(schema, field);
      case 'integer':
      case 'number':
        return this.number(schema, field);
      case 'boolean':
        return field === 'ok' || (request && field === 'active');
      case 'null':
        return null;
      default:
        return null;
    }
  }

  /** Every property of an answer; for a request, see `request`. */
  private object(schema: JsonSchema, depth: number): Record<string, unknown> {
    const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
    return Object.fromEntries(Object.entries(properties).map(([name, sub]) => [name, this.of(sub, name, depth + 1)]));
  }

  /**
   * A request body of operation `operationId`: the required fields and a few telling
   * optional ones, then the operation's own values (REQUEST_EXAMPLES).
   */
  request(schema: JsonSchema, required: string[], operationId = ''): Record<string, unknown> {
    const example = this.fields(schema, 0, required);
    for (const [name, value] of Object.entries(REQUEST_EXAMPLES[operationId] ?? {})) {
      if (value === undefined) delete example[name];
      else example[name] = value;
    }
    return example;
  }

  /**
   * The fields of a request object, nested ones too (a bulk item, a link): the required
   * fields and up to six optional ones, leaving out deprecated aliases, the id form of a
   * reference whose key form is there too, and what other fields already give.
   */
  private fields(schema: JsonSchema, depth: number, required = (schema.required ?? []) as string[]) {
    const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
    const chosen = Object.entries(properties).filter(([name, sub]) => {
      if (required.includes(name)) return true;
      const text = typeof sub.description === 'string' ? sub.description : '';
      if (sub.deprecated === true || /^(Alias of|Legacy name)/.test(text)) return false;
      if (name.endsWith('Id') && `${name.slice(0, -2)}Key` in properties) return false;
      return !DERIVED.has(name);
    });
    const limited = [
      ...chosen.filter(([name]) => required.includes(name)),
      ...chosen.filter(([name]) => !required.includes(name)).slice(0, 6),
    ];
    return Object.fromEntries(limited.map(([name, sub]) => [name, this.of(sub, name, depth + 1, true)]));
  }

  private resolve(ref: string): JsonSchema {
    return this.components[ref.replace('#/components/schemas/', '')] ?? {};
  }

  private text(schema: JsonSchema, field: string): string {
    const format = typeof schema.format === 'string' ? FORMATTED[schema.format] : undefined;
    const prefix = ID_PREFIXES[field];
    const value =
      (format && RANGE_ENDS[field]) ??
      format ??
      NAMED_TEXT[field] ??
      (/Email$/.test(field) ? 'dana@partner.example' : undefined) ??
      (prefix ? `${prefix}_${ULID}` : field || 'text');
    const max = typeof schema.maxLength === 'number' ? schema.maxLength : Infinity;
    return value.slice(0, max);
  }

  private number(schema: JsonSchema, field: string): number {
    const minimum = typeof schema.minimum === 'number' ? schema.minimum : 0;
    const wanted = field === 'limit' ? 50 : field.endsWith('Count') ? 3 : 1;
    const maximum = typeof schema.maximum === 'number' ? schema.maximum : Infinity;
    return Math.min(Math.max(wanted, minimum), maximum);
  }
}

/** `issues` → `issue`, so the items of a list take the example of their field's singular. */
function singular(field: string): string {
  if (field.endsWith('Ids')) return field.slice(0, -1);
  if (field.endsWith('ies')) return `${field.slice(0, -3)}y`;
  return field.endsWith('s') ? field.slice(0, -1) : field;
}
