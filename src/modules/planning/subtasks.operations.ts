import { created, defineOperation, noContent, ok, type Operation } from '../../operations/define.js';
import {
  CreateSubtaskBody,
  IssueParams,
  SubtaskListResponse,
  SubtaskParams,
  SubtaskResponse,
  UpdateSubtaskBody,
  subtaskFieldCodes,
  issueKeyAlias,
} from './subtasks.schemas.js';
import { createSubtask, deleteSubtaskById, getSubtask, listSubtasks, updateSubtaskById } from './subtasks.service.js';
import { defineResource } from '../../operations/versioned.js';

/** The versioned record its GET, PATCH and DELETE share (ETag, If-Match). */
const subtaskResource = defineResource({
  name: 'subtask',
  table: 'subtasks',
  idField: 'subtaskId',
  read: (ctx, params: { issueId: string; subtaskId: string }) => getSubtask(ctx, params.issueId, params.subtaskId),
});

const tag = 'Sub-tasks';

export const subtaskOperations: Operation[] = [
  defineOperation({
    id: 'list_subtasks',
    method: 'GET',
    path: '/api/external/issues/{issueId}/subtasks',
    tag,
    summary: 'List the sub-tasks of an issue by position (promoted ones stay listed with migrated: true).',
    params: IssueParams,
    response: SubtaskListResponse,
    mcpAliases: issueKeyAlias,
    run: async (ctx, { params }) => ok(await listSubtasks(ctx, params.issueId)),
  }),
  defineOperation({
    id: 'create_subtask',
    method: 'POST',
    path: '/api/external/issues/{issueId}/subtasks',
    tag,
    summary: 'Create a sub-task of an issue whose project has sub-tasks enabled.',
    description:
      'Needs sub-tasks enabled on the project and the parent issue. Reporter, project and container come from the parent.',
    params: IssueParams,
    body: CreateSubtaskBody,
    errors: [
      'ASSIGNEE_NOT_IN_PROJECT',
      'ASSIGNEE_NOT_IN_PROJECT_TEAM',
      'ASSIGNEE_NOT_IN_WORKSPACE',
      'SUBTASK_DISABLED',
    ],
    requiredFields: ['title'],
    fieldCodes: subtaskFieldCodes,
    response: SubtaskResponse,
    successStatus: 201,
    mcpAliases: issueKeyAlias,
    run: async (ctx, { params, body }) => created({ subtask: await createSubtask(ctx, params.issueId, body) }),
  }),
  defineOperation({
    id: 'get_subtask',
    resource: subtaskResource,
    method: 'GET',
    path: '/api/external/issues/{issueId}/subtasks/{subtaskId}',
    tag,
    summary: 'One sub-task of the issue.',
    params: SubtaskParams,
    response: SubtaskResponse,
    mcpAliases: issueKeyAlias,
    run: async (ctx, { params }) => ok({ subtask: await getSubtask(ctx, params.issueId, params.subtaskId) }),
  }),
  defineOperation({
    id: 'update_subtask',
    resource: subtaskResource,
    method: 'PATCH',
    path: '/api/external/issues/{issueId}/subtasks/{subtaskId}',
    tag,
    summary: 'Update title, status, assignee or schedule of a sub-task (startDate anchors schedule changes).',
    params: SubtaskParams,
    body: UpdateSubtaskBody,
    errors: [
      'ASSIGNEE_NOT_IN_PROJECT',
      'ASSIGNEE_NOT_IN_PROJECT_TEAM',
      'ASSIGNEE_NOT_IN_WORKSPACE',
      'SUBTASK_DISABLED',
      'UNSUPPORTED_ACTION',
    ],
    fieldCodes: subtaskFieldCodes,
    response: SubtaskResponse,
    mcpAliases: issueKeyAlias,
    run: async (ctx, { params, body }) =>
      ok({ subtask: await updateSubtaskById(ctx, params.issueId, params.subtaskId, body) }),
  }),
  defineOperation({
    id: 'delete_subtask',
    resource: subtaskResource,
    method: 'DELETE',
    path: '/api/external/issues/{issueId}/subtasks/{subtaskId}',
    tag,
    summary: 'Delete a sub-task and both sides of its links.',
    params: SubtaskParams,
    errors: ['SUBTASK_DISABLED'],
    successStatus: 204,
    mcpAliases: issueKeyAlias,
    run: async (ctx, { params }) => {
      await deleteSubtaskById(ctx, params.issueId, params.subtaskId);
      return noContent();
    },
  }),
];
