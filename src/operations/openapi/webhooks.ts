import { Type, type TSchema } from '@sinclair/typebox';
import { EVENT_TYPES, type EventType } from '../../events/outbox.js';
import { CommentSchema } from '../../modules/issues/comments.schemas.js';
import { IssueSchema, LinkSchema } from '../../modules/issues/issues.schemas.js';
import { MilestoneSchema } from '../../modules/planning/milestones.schemas.js';
import { SubtaskSchema } from '../../modules/planning/subtasks.schemas.js';
import { ProjectSchema } from '../../modules/projects/projects.schemas.js';
import type { JsonSchema, SchemaConverter } from './json-schema.js';

/**
 * The webhook events (OpenAPI 3.1 `webhooks`): one signed POST per event type, whose body
 * is the event envelope with the resource as the API presents it (CONTRACT.md §4). Also the
 * `WebhookEvent` union a receiver switches on by `type`.
 */

const IssueRef = Type.Object({ issueId: Type.String(), issueKey: Type.String() });
const MilestoneRef = Type.Object({
  milestoneId: Type.String(),
  issueContainerId: Type.String(),
  title: Type.String(),
});

function dataOf(type: EventType): TSchema {
  const [resource] = type.split('.');
  if (type === 'milestone.comment.created') return Type.Object({ comment: CommentSchema, milestone: MilestoneRef });
  if (type.startsWith('issue.comment.')) return Type.Object({ comment: CommentSchema, issue: IssueRef });
  if (type.startsWith('issue.link.')) return Type.Object({ link: LinkSchema, issue: IssueRef });
  if (resource === 'subtask') return Type.Object({ subtask: SubtaskSchema, issue: IssueRef });
  if (resource === 'milestone') return Type.Object({ milestone: MilestoneSchema });
  if (resource === 'project') return Type.Object({ project: ProjectSchema });
  return Type.Object({ issue: IssueSchema });
}

/** `issue.comment.created` → `IssueCommentCreatedEvent`. */
const eventName = (type: string): string =>
  `${type
    .split('.')
    .map((part) => part[0].toUpperCase() + part.slice(1))
    .join('')}Event`;

function envelope(type: EventType): TSchema {
  return Type.Object({
    id: Type.String({ description: 'evt_…; equals the webhook-id header and is the same on every attempt.' }),
    type: Type.Literal(type),
    createdAt: Type.String(),
    workspaceId: Type.String(),
    actor: Type.Object({
      kind: Type.Union([Type.Literal('api_token'), Type.Literal('user')]),
      id: Type.String({ description: 'api-token:<name> or usr_…' }),
    }),
    data: dataOf(type),
  });
}

const SIGNATURE_HEADERS = [
  ['webhook-id', 'The event id (evt_…), the same on every attempt: deduplicate on it.'],
  ['webhook-timestamp', 'Unix seconds when this attempt was signed; refuse ones older than five minutes.'],
  ['webhook-signature', 'Space-separated `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<raw body>">` signatures.'],
].map(([name, description]) => ({ name, in: 'header', required: true, description, schema: { type: 'string' } }));

const RECEIVER_ANSWERS = {
  '200': { description: 'Any 2xx acknowledges the event.' },
  '400': { description: 'Any other answer (or none within 10 s) is retried with backoff.' },
};

/** Adds every event's schema to the converter's components and answers the `webhooks` map. */
export function webhookSection(converter: SchemaConverter): Record<string, unknown> {
  const refs: JsonSchema[] = [];
  const webhooks: Record<string, unknown> = {};
  for (const type of EVENT_TYPES) {
    const ref = converter.convert(envelope(type), eventName(type));
    refs.push(ref);
    webhooks[type] = {
      post: {
        operationId: `on${eventName(type)}`,
        summary: `${type}, sent to subscriptions whose events include it or "*".`,
        tags: ['Webhook events'],
        parameters: SIGNATURE_HEADERS,
        requestBody: { required: true, content: { 'application/json': { schema: ref } } },
        responses: RECEIVER_ANSWERS,
      },
    };
  }
  converter.components.WebhookEvent = {
    description: 'Every webhook event body; switch on `type`.',
    oneOf: refs,
    discriminator: {
      propertyName: 'type',
      mapping: Object.fromEntries(EVENT_TYPES.map((type, i) => [type, refs[i].$ref])),
    },
  };
  // A subscription whose events are ["*"] receives any of them.
  webhooks['*'] = {
    post: {
      operationId: 'onWebhookEvent',
      summary: 'Any event, sent to subscriptions whose events are ["*"].',
      tags: ['Webhook events'],
      parameters: SIGNATURE_HEADERS,
      requestBody: {
        required: true,
        content: { 'application/json': { schema: { $ref: '#/components/schemas/WebhookEvent' } } },
      },
      responses: RECEIVER_ANSWERS,
    },
  };
  return webhooks;
}
