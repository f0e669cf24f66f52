import { Type } from '@sinclair/typebox';
import {
  DateString,
  NonBlank,
  Nullable,
  PathParam,
  Ref,
  serviceCheck,
  Title,
  Version,
} from '../../operations/schema-helpers.js';
import { LINK_TYPES } from '../issues/index.js';

export const SUBTASK_STATUSES = ['to-do', 'in-progress', 'done'] as const;
export type SubtaskStatus = (typeof SUBTASK_STATUSES)[number];

const StatusSchema = Type.Union(
  SUBTASK_STATUSES.map((s) => Type.Literal(s)),
  { description: 'to-do (default), in-progress or done.' },
);

export const SubtaskLinkSchema = Type.Object({
  linkId: Type.String(),
  type: Type.Union([Type.Literal('blocks'), Type.Literal('blocked_by'), Type.Literal('related')]),
  targetSubtaskId: Type.String(),
  isSatisfied: Nullable(
    Type.Boolean({ description: 'blocked_by: the target is done; blocks: this sub-task is done; null for related.' }),
  ),
});

export const SubtaskSchema = Type.Object({
  subtaskId: Type.String(),
  parentIssueId: Type.String(),
  title: Type.String(),
  status: StatusSchema,
  assigneeId: Nullable(Type.String()),
  reporterId: Nullable(Type.String()),
  projectId: Type.String({ description: "The parent issue's project." }),
  epicId: Nullable(Type.String({ description: "The parent issue's container." })),
  issueContainerId: Nullable(Type.String({ description: 'Same value as epicId.' })),
  startDate: Nullable(Type.String()),
  dueDate: Nullable(Type.String()),
  durationDays: Nullable(Type.Integer()),
  links: Type.Array(SubtaskLinkSchema),
  migrated: Type.Boolean(),
  migratedIssueId: Nullable(Type.String()),
  position: Type.Integer({ description: "0-based place among the parent's sub-tasks." }),
  createdAt: Type.String(),
  updatedAt: Type.String(),
  version: Version(),
});

const subtaskFields = {
  title: Title('Required on create (SUBTASK_TITLE_REQUIRED); at most 500 characters.'),
  status: StatusSchema,
  assigneeId: Nullable(
    Ref("A member of the project's team or an automation agent with access to the project; null unassigns."),
  ),
  startDate: Nullable(DateString()),
  dueDate: Nullable(DateString()),
  durationDays: Nullable(
    Type.Integer({ description: 'Days from startDate to dueDate; any two of the three determine the third.' }),
  ),
};

export const CreateSubtaskBody = Type.Partial(Type.Object(subtaskFields));
export const UpdateSubtaskBody = Type.Partial(Type.Object(subtaskFields));
export const subtaskFieldCodes = {
  title: 'SUBTASK_TITLE_REQUIRED',
  startDate: 'INVALID_SCHEDULE',
  dueDate: 'INVALID_SCHEDULE',
  durationDays: 'INVALID_SCHEDULE',
} as const;

/** MCP callers may name the parent issue by key. */
export const issueKeyAlias = { issueKey: 'issueId' };

export const IssueParams = Type.Object({ issueId: PathParam('issueId or issueKey of the parent issue.') });
export const SubtaskParams = Type.Object({
  issueId: PathParam('issueId or issueKey of the parent issue.'),
  subtaskId: PathParam(),
});
export const SubtaskResponse = Type.Object({ subtask: SubtaskSchema });
export const SubtaskListResponse = Type.Object({ subtasks: Type.Array(SubtaskSchema) });

export const CreateSubtaskLinkBody = Type.Partial(
  Type.Object({
    type: serviceCheck(Ref('blocks, blocked_by or related (INVALID_ISSUE_LINK_TYPE).'), { enum: LINK_TYPES }),
    targetSubtaskId: Ref('A sibling sub-task: same parent issue.'),
  }),
);
export const subtaskLinkFieldCodes = {
  type: 'INVALID_ISSUE_LINK_TYPE',
  targetSubtaskId: 'SUBTASK_LINK_TARGET_NOT_FOUND',
} as const;
export const DeleteSubtaskLinkBody = Type.Partial(
  Type.Object({ linkId: NonBlank(Ref('Required (ISSUE_LINK_ID_REQUIRED).')) }),
);
export const deleteSubtaskLinkFieldCodes = { linkId: 'ISSUE_LINK_ID_REQUIRED' } as const;
export const SubtaskLinkResponse = Type.Object({ link: SubtaskLinkSchema });

export const PromoteSubtaskBody = Type.Partial(
  Type.Object({
    // One entry per sub-task status: the mapping is bounded, and a misspelt status is refused
    // as an unknown field rather than silently ignored.
    statusMapping: Type.Object(Object.fromEntries(SUBTASK_STATUSES.map((s) => [s, Type.Optional(Ref())])), {
      additionalProperties: false,
      description:
        'Sub-task status → statusKey (or statusId) of the project; only the entry for the current status is needed.',
    }),
  }),
);
export const promoteFieldCodes = { statusMapping: 'SUBTASK_STATUS_MAPPING_REQUIRED' } as const;
