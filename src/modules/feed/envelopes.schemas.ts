import { Type, type TObject, type TSchema } from '@sinclair/typebox';
import { BOOKKEEPING_FIELDS } from '../../events/changes.js';
import { DELIVERED_EVENT_TYPES, type DeliveredEventType } from '../../events/outbox.js';
import { TopicSchema } from '../discussions/index.js';
import { CommentSchema, IssueSchema, LinkSchema } from '../issues/index.js';
import { AgendaItemSchema, MeetingSchema } from '../meetings/index.js';
import { MilestoneSchema, SubtaskSchema } from '../planning/index.js';
import { ProjectSchema } from '../projects/index.js';
import { WebhookSchema } from '../webhooks/index.js';

/**
 * The event envelope of each type, with the resource as the API presents it
 * (docs/events.md): the body webhooks POST and the change feed lists. One schema per type,
 * named as its document component (`issue.comment.created` → `IssueCommentCreatedEvent`),
 * so both use the same components. docs/events.md describes each type's data.
 */

const IssueRef = Type.Object({ issueId: Type.String(), issueKey: Type.String() });
const MilestoneRef = Type.Object({
  milestoneId: Type.String(),
  issueContainerId: Type.String(),
  title: Type.String(),
});
const MeetingRef = Type.Object({ meetingId: Type.String(), title: Type.String() });

/**
 * Events about one record, by the first part of their type: the record's name in `data`,
 * its schema, and the references that come with it.
 */
const RECORDS: Record<string, { name: string; schema: TObject; refs?: Record<string, TSchema> }> = {
  project: { name: 'project', schema: ProjectSchema },
  issue: { name: 'issue', schema: IssueSchema },
  subtask: { name: 'subtask', schema: SubtaskSchema, refs: { issue: IssueRef } },
  milestone: { name: 'milestone', schema: MilestoneSchema },
  meeting: { name: 'meeting', schema: MeetingSchema },
  agenda_item: { name: 'agendaItem', schema: AgendaItemSchema, refs: { meeting: MeetingRef } },
  discussion_topic: { name: 'topic', schema: TopicSchema },
};

/** The actions that write an existing record: their events carry `changes`. */
const CHANGING_ACTIONS = new Set(['updated', 'archived', 'restored', 'promoted', 'converted']);

/** `data.changes` of a record presented by `schema`: any of its fields but bookkeeping, each `{ from, to }`. */
const changesOf = (schema: TObject): TObject =>
  Type.Object(
    Object.fromEntries(
      Object.entries(schema.properties)
        .filter(([field]) => !BOOKKEEPING_FIELDS.has(field))
        .map(([field, value]) => [field, Type.Optional(Type.Object({ from: Type.Optional(value), to: value }))]),
    ),
    {
      additionalProperties: false,
      description:
        'Each field whose value this write changed, as the record presents it before (`from`) and after (`to`). ' +
        '`from` is absent when the earlier value named a project the receiver cannot see (a record moved in from it). ' +
        'Fields sent with their current value, and updatedAt and version, are not listed.',
    },
  );

const changesName = (recordName: string) => `${recordName[0].toUpperCase()}${recordName.slice(1)}Changes`;

/** Each record's `changes`, by its document component name (`IssueChanges`, `AgendaItemChanges`, …). */
export const CHANGES_SCHEMAS: Readonly<Record<string, TObject>> = Object.fromEntries(
  Object.values(RECORDS).map((record) => [changesName(record.name), changesOf(record.schema)]),
);

function recordData(type: DeliveredEventType, resource: string): TSchema {
  const record = RECORDS[resource];
  const action = type.slice(type.lastIndexOf('.') + 1);
  return Type.Object({
    [record.name]: record.schema,
    ...record.refs,
    ...(action === 'converted'
      ? {
          issue: Type.Union([IssueRef, Type.Null()], {
            description: 'The issue made; null when the receiver cannot see its project.',
          }),
        }
      : {}),
    ...(CHANGING_ACTIONS.has(action) ? { changes: CHANGES_SCHEMAS[changesName(record.name)] } : {}),
  });
}

function dataOf(type: DeliveredEventType): TSchema {
  const [resource] = type.split('.');
  // webhook.disabled and webhook.ping: the subscription as GET /webhooks/{webhookId} shows it.
  if (resource === 'webhook') return Type.Object({ webhook: WebhookSchema });
  if (type === 'milestone.comment.created') return Type.Object({ comment: CommentSchema, milestone: MilestoneRef });
  if (type.startsWith('issue.comment.')) return Type.Object({ comment: CommentSchema, issue: IssueRef });
  if (type.startsWith('issue.link.')) return Type.Object({ link: LinkSchema, issue: IssueRef });
  return recordData(type, resource);
}

/** `issue.comment.created` → `IssueCommentCreatedEvent`, `agenda_item.created` → `AgendaItemCreatedEvent`. */
export const eventSchemaName = (type: string): string =>
  `${type
    .split(/[._]/)
    .map((part) => part[0].toUpperCase() + part.slice(1))
    .join('')}Event`;

/** The server acts on its own only to deactivate a failing subscription. */
const actorKinds = (type: DeliveredEventType) =>
  type === 'webhook.disabled' ? ['api_token', 'user', 'system'] : ['api_token', 'user'];

function envelope(type: DeliveredEventType): TSchema {
  return Type.Object({
    id: Type.String({ description: 'evt_…; equals the webhook-id header and is the same on every attempt.' }),
    type: Type.Literal(type),
    createdAt: Type.String(),
    workspaceId: Type.String(),
    actor: Type.Object({
      kind: Type.Union(actorKinds(type).map((kind) => Type.Literal(kind))),
      id: Type.String({ description: 'api-token:<name>, usr_…, or wsx for the server itself' }),
    }),
    data: dataOf(type),
  });
}

/** Every event type's envelope by its component name, in DELIVERED_EVENT_TYPES order (webhook.ping last). */
export const WEBHOOK_EVENT_SCHEMAS: Readonly<Record<string, TSchema>> = Object.fromEntries(
  DELIVERED_EVENT_TYPES.map((type) => [eventSchemaName(type), envelope(type)]),
);
