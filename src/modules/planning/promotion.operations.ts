import { Type } from '@sinclair/typebox';
import { created, defineOperation, type Operation } from '../../operations/define.js';
import { IssueSchema } from '../issues/index.js';
import {
  PromoteSubtaskBody,
  SubtaskParams,
  SubtaskSchema,
  issueKeyAlias,
  promoteFieldCodes,
} from './subtasks.schemas.js';
import { promoteSubtask } from './promotion.service.js';

export const promotionOperations: Operation[] = [
  defineOperation({
    id: 'promote_subtask',
    method: 'POST',
    path: '/api/external/issues/{issueId}/subtasks/{subtaskId}/promote',
    tag: 'Sub-tasks',
    // The sub-task is migrated: it stops being a sub-task of its parent.
    mcpHints: { destructive: true },
    summary: 'Promote a sub-task to a mainline issue with a status mapping; the issue is linked related to the parent.',
    params: SubtaskParams,
    body: PromoteSubtaskBody,
    errors: ['SUBTASK_DISABLED', 'UNSUPPORTED_ACTION'],
    fieldCodes: promoteFieldCodes,
    successStatus: 201,
    response: Type.Object({ issue: IssueSchema, subtask: SubtaskSchema }),
    mcpAliases: issueKeyAlias,
    run: async (ctx, { params, body }) => created(await promoteSubtask(ctx, params.issueId, params.subtaskId, body)),
  }),
];
