import { created, defineOperation, noContent, ok, type Operation } from '../../operations/define.js';
import {
  CreateSubtaskLinkBody,
  DeleteSubtaskLinkBody,
  SubtaskLinkResponse,
  SubtaskParams,
  deleteSubtaskLinkFieldCodes,
  subtaskLinkFieldCodes,
  issueKeyAlias,
} from './subtasks.schemas.js';
import { createSubtaskLink, deleteSubtaskLink } from './subtask-links.service.js';

const tag = 'Sub-tasks';

export const subtaskLinkOperations: Operation[] = [
  defineOperation({
    id: 'link_subtasks',
    method: 'POST',
    path: '/api/external/issues/{issueId}/subtasks/{subtaskId}/links',
    tag,
    summary:
      'Link two sibling sub-tasks (blocks, blocked_by, related); the inverse appears on the target. An existing link answers 200.',
    params: SubtaskParams,
    body: CreateSubtaskLinkBody,
    errors: ['ISSUE_LINK_SELF_REFERENCE', 'SUBTASK_DISABLED', 'SUBTASK_LINK_SCOPE_INVALID'],
    answersExisting: true,
    requiredFields: ['type', 'targetSubtaskId'],
    fieldCodes: subtaskLinkFieldCodes,
    response: SubtaskLinkResponse,
    successStatus: 201,
    mcpAliases: issueKeyAlias,
    run: async (ctx, { params, body }) => {
      const { link, created: isNew } = await createSubtaskLink(ctx, params.issueId, params.subtaskId, body);
      return isNew ? created({ link }) : ok({ link });
    },
  }),
  defineOperation({
    id: 'unlink_subtasks',
    method: 'DELETE',
    path: '/api/external/issues/{issueId}/subtasks/{subtaskId}/links',
    tag,
    summary: 'Remove a sub-task link (body { linkId }) and its inverse.',
    params: SubtaskParams,
    body: DeleteSubtaskLinkBody,
    errors: ['ISSUE_LINK_NOT_FOUND', 'SUBTASK_DISABLED'],
    requiredFields: ['linkId'],
    fieldCodes: deleteSubtaskLinkFieldCodes,
    successStatus: 204,
    mcpAliases: issueKeyAlias,
    run: async (ctx, { params, body }) => {
      await deleteSubtaskLink(ctx, params.issueId, params.subtaskId, body);
      return noContent();
    },
  }),
];
