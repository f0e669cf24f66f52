import type { JsonSchema } from './json-schema.js';

/**
 * Example values made from the document's own schemas, so every operation shows a request
 * and an answer that have the real shape (a test validates each example against its
 * schema). Values come from the field's name where the name says what it holds (an issueId
 * looks like `iss_…`, an issueKey like `ENG-42`), else from its type and bounds.
 */

const ULID = '01jd7q8x3k2m9v5t6w4y0z1a2b';

const ID_PREFIXES: Record<string, string> = {
  issueId: 'iss',
  targetIssueId: 'iss',
  convertedIssueId: 'iss',
  projectId: 'prj',
  sourceProjectId: 'prj',
  teamId: 'team',
  defaultTeamId: 'team',
  statusId: 'st',
  userId: 'usr',
  reporterId: 'usr',
  ownerId: 'usr',
  commentId: 'cmt',
  linkId: 'lnk',
  milestoneId: 'ms',
  issueContainerId: 'ic',
  epicId: 'ic',
  meetingId: 'mtg',
  agendaItemId: 'agi',
  agendaGroupId: 'agp',
  agendaStatusId: 'ags',
  topicId: 'top',
  groupId: 'dgr',
  webhookId: 'whk',
  deliveryId: 'dlv',
  attachmentId: 'att',
  evolutionId: 'evo',
  subtaskId: 'sub',
  workspaceId: 'ws',
  presetId: 'pre',
};

const NAMED_TEXT: Record<string, string> = {
  issueKey: 'ENG-42',
  targetIssueKey: 'ENG-7',
  projectKey: 'API',
  teamKey: 'ENG',
  statusKey: 'in-progress',
  assigneeId: 'api-token:triage-bot',
  title: 'Retry webhook deliveries with backoff',
  name: 'Public API',
  description: 'Receivers that time out are retried with exponential backoff.',
  body: 'Reproduced on the staging receiver; fix under review.',
  reason: 'Clarified the scope after triage.',
  email: 'alice@example.com',
  handle: 'alice',
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  nextCursor: 'eyJrIjoiMDFqZDdxOHgzayJ9.c2lnbmF0dXJl',
  cursor: 'eyJrIjoiMDFqZDdxOHgzayJ9.c2lnbmF0dXJl',
  slug: 'acme',
  q: 'webhook',
};

const FORMATTED: Record<string, string> = {
  'date-time': '2026-11-24T09:30:00.000Z',
  date: '2026-12-01',
  uri: 'https://hooks.example.com/wsx',
};

const MAX_DEPTH = 12;

export class ExampleMaker {
  constructor(private readonly components: Record<string, JsonSchema>) {}

  /** An example of the schema; `field` is the property it is the value of. */
  of(schema: JsonSchema, field = '', depth = 0): unknown {
    if (depth > MAX_DEPTH) return null;
    if (typeof schema.$ref === 'string') return this.of(this.resolve(schema.$ref), field, depth + 1);
    if ('const' in schema) return schema.const;
    if (Array.isArray(schema.enum)) return schema.enum[0];
    if (Array.isArray(schema.anyOf)) {
      const branches = schema.anyOf as JsonSchema[];
      return this.of(branches.find((b) => b.type !== 'null') ?? branches[0], field, depth + 1);
    }
    switch (schema.type) {
      case 'object':
        return this.object(schema, depth);
      case 'array': {
        if (schema.maxItems === 0 || !schema.items) return [];
        return [this.of(schema.items as JsonSchema, singular(field), depth + 1)];
      }
      case 'string':
        return this.text(schema, field);
      case 'integer':
      case 'number':
        return this.number(schema, field);
      case 'boolean':
        return field === 'ok';
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
   * A request body: the required fields and a few telling optional ones, leaving out
   * legacy aliases and the id form of a reference whose key form is there too.
   */
  request(schema: JsonSchema, required: string[]): Record<string, unknown> {
    const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
    const chosen = Object.entries(properties).filter(([name, sub]) => {
      if (required.includes(name)) return true;
      const text = typeof sub.description === 'string' ? sub.description : '';
      if (/^(Alias of|Legacy name)/.test(text)) return false;
      if (name.endsWith('Id') && `${name.slice(0, -2)}Key` in properties) return false;
      return true;
    });
    const limited = [
      ...chosen.filter(([name]) => required.includes(name)),
      ...chosen.filter(([name]) => !required.includes(name)).slice(0, 6),
    ];
    return Object.fromEntries(limited.map(([name, sub]) => [name, this.of(sub, name)]));
  }

  private resolve(ref: string): JsonSchema {
    return this.components[ref.replace('#/components/schemas/', '')] ?? {};
  }

  private text(schema: JsonSchema, field: string): string {
    const format = typeof schema.format === 'string' ? FORMATTED[schema.format] : undefined;
    const prefix = ID_PREFIXES[field];
    const value = format ?? NAMED_TEXT[field] ?? (prefix ? `${prefix}_${ULID}` : field || 'text');
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
