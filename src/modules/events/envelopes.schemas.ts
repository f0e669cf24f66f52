import { Type, type TSchema } from '@sinclair/typebox';
import { EVENT_TYPES, type EventType } from '../../events/outbox.js';
import { CommentSchema } from '../issues/comments.schemas.js';
import { IssueSchema, LinkSchema } from '../issues/issues.schemas.js';
import { MilestoneSchema } from '../planning/milestones.schemas.js';
import { SubtaskSchema } from '../planning/subtasks.schemas.js';
import { ProjectSchema } from '../projects/projects.schemas.js';

/**
 * The event envelope of each type, with the resource as the API presents it (CONTRACT.md
 * §4): the body webhooks POST and the change feed lists. One schema per type, named as its
 * document component (`issue.comment.created` → `IssueCommentCreatedEvent`), so both use
 * the same components.
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
export const eventSchemaName = (type: string): string =>
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

/** Every event type's envelope by its component name, in EVENT_TYPES order. */
export const WEBHOOK_EVENT_SCHEMAS: Readonly<Record<string, TSchema>> = Object.fromEntries(
  EVENT_TYPES.map((type) => [eventSchemaName(type), envelope(type)]),
);
