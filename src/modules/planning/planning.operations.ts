import type { Operation } from '../../operations/define.js';
import { containerOperations } from './containers.operations.js';
import { milestoneCommentOperations } from './milestone-comments.operations.js';
import { milestoneOperations } from './milestones.operations.js';
import { promotionOperations } from './promotion.operations.js';
import { subtaskLinkOperations } from './subtask-links.operations.js';
import { subtaskOperations } from './subtasks.operations.js';

/** Sub-tasks, issue containers and their milestones, in reference order. */
export const planningOperations: Operation[] = [
  ...subtaskOperations,
  ...subtaskLinkOperations,
  ...promotionOperations,
  ...containerOperations,
  ...milestoneOperations,
  ...milestoneCommentOperations,
];
