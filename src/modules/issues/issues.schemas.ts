import { Type } from '@sinclair/typebox';
import type { ErrorCode } from '../../core/errors.js';
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
  Text,
  Title,
  Version,
} from '../../operations/schema-helpers.js';
import { ListOrderQueryFields, archivedDescription } from '../../operations/list-order-query.js';
import { ProjectScopeQueryFields } from '../projects/index.js';
import { LINK_TYPES } from './links.presenter.js';
import { PRIORITIES, SOURCE_TYPES } from './issues.presenter.js';

export const LinkSchema = Type.Object({
  linkId: Type.String(),
  type: Type.Union(LINK_TYPES.map((t) => Type.Literal(t))),
  targetIssueId: Type.String(),
  targetIssueKey: Type.String(),
  isSatisfied: Nullable(Type.Boolean()),
});

export const IssueSchema = Type.Object({
  issueId: Type.String(),
  issueKey: Type.String(),
  title: Type.String(),
  description: Nullable(Type.String()),
  projectId: Type.String(),
  projectKey: Type.String(),
  teamId: Type.String(),
  teamKey: Type.String(),
  statusId: Type.String(),
  statusKey: Type.String(),
  assigneeId: Nullable(Type.String()),
  reporterId: Nullable(Type.String()),
  priority: Type.Union(PRIORITIES.map((p) => Type.Literal(p))),
  startDate: Nullable(Type.String()),
  dueDate: Nullable(Type.String()),
  durationDays: Nullable(Type.Integer()),
  tags: TagList,
  labels: TagList,
  archived: Type.Boolean(),
  archivedAt: Nullable(Type.String()),
  epicId: Nullable(Type.String()),
  issueContainerId: Nullable(Type.String()),
  milestoneId: Nullable(Type.String()),
  subtasksEnabled: Type.Boolean(),
  links: Type.Array(LinkSchema),
  source: Nullable(Type.Object({ type: Type.Union(SOURCE_TYPES.map((t) => Type.Literal(t))), id: Type.String() })),
  createdBy: Type.String(),
  earliestStartDate: Nullable(Type.String()),
  createdAt: Type.String(),
  updatedAt: Type.String(),
  version: Version(),
});

const issueFields = {
  title: Title('Required on create, at most 500 characters (TITLE_REQUIRED).'),
  description: Nullable(Text()),
  projectId: Ref(),
  projectKey: Ref('With teamKey or teamId when the key is used in several teams.'),
  teamId: Ref(),
  teamKey: Ref(),
  statusId: Ref(),
  statusKey: Ref('Default: the first unstarted status the project allows.'),
  assigneeId: Nullable(Ref("usr_… member of the project's team, or api-token:<name> with access to the project.")),
  reporterId: Nullable(Ref('usr_… workspace member; defaults to the caller when human.')),
  priority: Type.Union(
    PRIORITIES.map((p) => Type.Literal(p)),
    { description: 'Default none.' },
  ),
  tags: TagList,
  labels: LabelList,
  startDate: Nullable(DateString()),
  dueDate: Nullable(DateString()),
  durationDays: Nullable(
    Type.Integer({ description: 'Days from startDate to dueDate; any two of the three give the third.' }),
  ),
  epicId: alias(Nullable(Ref('Alias of issueContainerId.')), 'issueContainerId'),
  issueContainerId: Nullable(Ref()),
  milestoneId: Nullable(Ref("A milestone of the issue's container.")),
  subtasksEnabled: Type.Boolean(),
};

export const CreateIssueBody = Type.Partial(Type.Object(issueFields));
export const UpdateIssueBody = Type.Partial(
  Type.Object({
    ...issueFields,
    archived: Type.Boolean({ description: 'true archives, false restores (INVALID_ARCHIVE_STATE otherwise).' }),
  }),
);

export const issueFieldCodes: Record<string, ErrorCode> = {
  title: 'TITLE_REQUIRED',
  startDate: 'INVALID_SCHEDULE',
  dueDate: 'INVALID_SCHEDULE',
  durationDays: 'INVALID_SCHEDULE',
  archived: 'INVALID_ARCHIVE_STATE',
};

export const ListIssuesQuery = Type.Object({
  ...ProjectScopeQueryFields,
  assignee: Type.Optional(alias(Ref('Alias of assigneeId.'), 'assigneeId')),
  assigneeId: Type.Optional(Ref()),
  assignedToMe: Type.Optional(
    Type.Boolean({ description: "Issues assigned to the caller's identity; not with assignee." }),
  ),
  status: Type.Optional(alias(Ref('statusId or statusKey.'), 'statusKey')),
  statusKey: Type.Optional(Ref('A status key (a statusId works too).')),
  q: SearchText('Case-insensitive text in title or description, or an exact issueKey.'),
  archived: Type.Optional(Type.Boolean({ description: archivedDescription('issues') })),
  ...ListOrderQueryFields('issues', { hidesArchived: true }),
  ...PaginationQuery,
});

export const IssueIdParams = Type.Object({ issueId: PathParam('issueId or issueKey.') });
export const IssueKeyParams = Type.Object({ issueKey: PathParam() });
export const IssueResponse = Type.Object({ issue: IssueSchema });
export const IssueListResponse = Type.Object({ issues: Type.Array(IssueSchema), pageInfo: PageInfoSchema });
