import { created, defineOperation, noContent, ok, type Operation } from '../../operations/define.js';
import {
  CreateMilestoneBody,
  ListMilestonesQuery,
  MilestoneDetailResponse,
  MilestoneIdParams,
  MilestoneListResponse,
  MilestoneResponse,
  UpdateMilestoneBody,
  milestoneFieldCodes,
} from './milestones.schemas.js';
import {
  createMilestone,
  deleteMilestoneById,
  getMilestone,
  listMilestones,
  updateMilestoneById,
} from './milestones.service.js';
import { defineResource } from '../../operations/versioned.js';

/** The versioned record its GET, PATCH and DELETE share (ETag, If-Match). */
const milestoneResource = defineResource({
  name: 'milestone',
  table: 'milestones',
  idField: 'milestoneId',
  read: (ctx, params: { milestoneId: string }) => getMilestone(ctx, params.milestoneId),
});

const tag = 'Milestones';

export const milestoneOperations: Operation[] = [
  defineOperation({
    id: 'list_milestones',
    method: 'GET',
    path: '/api/external/issue-container-milestones',
    tag,
    summary: 'List container milestones of the projects this credential can access, by order then creation.',
    query: ListMilestonesQuery,
    errors: [
      'ISSUE_CONTAINER_FIELD_CONFLICT',
      'ISSUE_CONTAINER_NOT_FOUND',
      'PROJECT_KEY_AMBIGUOUS',
      'PROJECT_NOT_FOUND',
      'TEAM_NOT_FOUND',
    ],
    response: MilestoneListResponse,
    run: async (ctx, { query }) => ok(await listMilestones(ctx, query)),
  }),
  defineOperation({
    id: 'create_milestone',
    method: 'POST',
    path: '/api/external/issue-container-milestones',
    tag,
    summary: 'Create a milestone in an issue container (issueContainerId or epicId).',
    body: CreateMilestoneBody,
    errors: [
      'ISSUE_CONTAINER_DISABLED',
      'ISSUE_CONTAINER_FIELD_CONFLICT',
      'ISSUE_CONTAINER_NOT_FOUND',
      'TAG_FIELD_CONFLICT',
    ],
    requiredFields: ['title'],
    fieldCodes: milestoneFieldCodes,
    response: MilestoneResponse,
    successStatus: 201,
    run: async (ctx, { body }) => created({ milestone: await createMilestone(ctx, body) }),
  }),
  defineOperation({
    id: 'get_milestone',
    resource: milestoneResource,
    method: 'GET',
    path: '/api/external/issue-container-milestones/{milestoneId}',
    tag,
    summary: 'One milestone with its activity history, oldest first.',
    params: MilestoneIdParams,
    response: MilestoneDetailResponse,
    run: async (ctx, { params }) => ok({ milestone: await getMilestone(ctx, params.milestoneId) }),
  }),
  defineOperation({
    id: 'update_milestone',
    resource: milestoneResource,
    method: 'PATCH',
    path: '/api/external/issue-container-milestones/{milestoneId}',
    tag,
    summary:
      'Update a milestone; null clears ownerId, startDate, dueDate. It may move to another container of its project.',
    params: MilestoneIdParams,
    body: UpdateMilestoneBody,
    errors: [
      'ISSUE_CONTAINER_DISABLED',
      'ISSUE_CONTAINER_FIELD_CONFLICT',
      'ISSUE_CONTAINER_NOT_FOUND',
      'TAG_FIELD_CONFLICT',
      'UNSUPPORTED_ACTION',
    ],
    fieldCodes: milestoneFieldCodes,
    response: MilestoneResponse,
    run: async (ctx, { params, body }) => ok({ milestone: await updateMilestoneById(ctx, params.milestoneId, body) }),
  }),
  defineOperation({
    id: 'delete_milestone',
    resource: milestoneResource,
    method: 'DELETE',
    path: '/api/external/issue-container-milestones/{milestoneId}',
    tag,
    summary: 'Delete a milestone; issues that carried it keep their container and lose the milestone.',
    params: MilestoneIdParams,
    successStatus: 204,
    run: async (ctx, { params }) => {
      await deleteMilestoneById(ctx, params.milestoneId);
      return noContent();
    },
  }),
];
