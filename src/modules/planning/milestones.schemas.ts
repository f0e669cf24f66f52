import { Type } from '@sinclair/typebox';
import {
  alias,
  DateString,
  LabelList,
  Nullable,
  PageInfoSchema,
  PaginationQuery,
  PathParam,
  Ref,
  SearchText,
  TagList,
  Title,
  Version,
} from '../../operations/schema-helpers.js';
import { ProjectScopeQueryFields } from '../projects/index.js';

export const MILESTONE_STATUSES = ['planned', 'at-risk', 'blocked', 'complete'] as const;
export type MilestoneStatus = (typeof MILESTONE_STATUSES)[number];

const StatusSchema = Type.Union(
  MILESTONE_STATUSES.map((s) => Type.Literal(s)),
  { description: 'planned (default), at-risk, blocked or complete.' },
);

export const MilestoneSchema = Type.Object({
  milestoneId: Type.String(),
  issueContainerId: Type.String(),
  epicId: Type.String({ description: 'Legacy name of issueContainerId (same value).' }),
  projectId: Type.String(),
  title: Type.String(),
  ownerId: Nullable(Type.String()),
  status: StatusSchema,
  startDate: Nullable(Type.String()),
  dueDate: Nullable(Type.String()),
  order: Type.Integer(),
  tags: Type.Array(Type.String()),
  labels: Type.Array(Type.String(), { description: 'Legacy name of tags (same value).' }),
  createdAt: Type.String(),
  updatedAt: Type.String(),
  version: Version(),
});

/** A tracked field's value: text (title, ids, status, dates), the integer order, or the tag list. */
const ActivityValue = (description: string) =>
  Type.Union([Type.String(), Type.Integer(), Type.Array(Type.String())], { description });

export const MilestoneActivitySchema = Type.Object({
  action: Type.Union([Type.Literal('created'), Type.Literal('updated'), Type.Literal('commented')]),
  field: Nullable(Type.String({ description: 'The changed field of an `updated` entry, else null.' })),
  from: Nullable(ActivityValue('The value before an `updated` change, else null.')),
  to: Nullable(ActivityValue('The value after an `updated` change; the commentId of a `commented` entry; else null.')),
  actorId: Type.String(),
  createdAt: Type.String(),
});

export const MilestoneDetailSchema = Type.Composite([
  MilestoneSchema,
  Type.Object({ activity: Type.Array(MilestoneActivitySchema) }),
]);

const milestoneFields = {
  title: Title('Required on create (TITLE_REQUIRED); at most 500 characters.'),
  issueContainerId: Nullable(Ref('The container (epic) the milestone belongs to; required on create.')),
  epicId: alias(
    Nullable(Ref('Legacy name of issueContainerId; both must agree when both are sent.')),
    'issueContainerId',
  ),
  ownerId: Nullable(Ref('usr_… or api-token:<name>; null clears.')),
  status: StatusSchema,
  startDate: Nullable(DateString()),
  dueDate: Nullable(DateString('YYYY-MM-DD, on or after startDate.')),
  // A 32-bit integer, the column's range on every database.
  order: Type.Integer({
    minimum: -2_147_483_648,
    maximum: 2_147_483_647,
    description: 'Place in the container; default: after the last one.',
  }),
  tags: TagList,
  labels: LabelList,
};

export const CreateMilestoneBody = Type.Partial(Type.Object(milestoneFields));
export const UpdateMilestoneBody = Type.Partial(Type.Object(milestoneFields));
export const milestoneFieldCodes = {
  title: 'TITLE_REQUIRED',
  issueContainerId: 'ISSUE_CONTAINER_REQUIRED_FOR_MILESTONE',
  epicId: 'ISSUE_CONTAINER_REQUIRED_FOR_MILESTONE',
  ownerId: 'OWNER_NOT_IN_WORKSPACE',
  startDate: 'INVALID_SCHEDULE',
  dueDate: 'INVALID_SCHEDULE',
} as const;

export const ListMilestonesQuery = Type.Object({
  ...ProjectScopeQueryFields,
  issueContainerId: Type.Optional(Ref()),
  epicId: Type.Optional(alias(Ref('Legacy name of issueContainerId.'), 'issueContainerId')),
  ownerId: Type.Optional(Ref()),
  status: Type.Optional(StatusSchema),
  q: SearchText('Case-insensitive text in the title.'),
  ...PaginationQuery,
});

export const MilestoneIdParams = Type.Object({ milestoneId: PathParam() });
export const MilestoneResponse = Type.Object({ milestone: MilestoneSchema });
export const MilestoneDetailResponse = Type.Object({ milestone: MilestoneDetailSchema });
export const MilestoneListResponse = Type.Object({ milestones: Type.Array(MilestoneSchema), pageInfo: PageInfoSchema });
