import type { Ctx } from '../../db/context.js';
import type { SubtaskRow } from '../../db/tables/planning.js';
import { touchRows } from '../../db/touch.js';
import { updateSubtask } from './subtasks.repository.js';

/**
 * Sub-tasks whose GET changes through a write to a sibling (db/touch.ts): each shows its
 * link sides in `links`, and a `blocked_by` side's `isSatisfied` reads the sibling's status.
 */

const DONE = 'done';

/** Both sub-tasks of a link made or removed. */
export async function touchLinkedSubtasks(ctx: Ctx, subtaskIds: string[]): Promise<void> {
  for (const subtaskId of new Set(subtaskIds)) await updateSubtask(ctx, subtaskId, { updated_at: ctx.now });
}

/** After a status change of `before`: the siblings it blocks, when it became or stopped being done. */
export async function touchSubtasksBlockedBy(ctx: Ctx, before: SubtaskRow, status: string | undefined): Promise<void> {
  if (status === undefined || (before.status === DONE) === (status === DONE)) return;
  await touchRows(ctx, 'subtasks', (eb) =>
    eb(
      'id',
      'in',
      eb
        .selectFrom('subtask_links')
        .select('subtask_id')
        .where('target_subtask_id', '=', before.id)
        .where('type', '=', 'blocked_by'),
    ),
  );
}

/** The siblings linked to a sub-task being deleted: they lose their side of each link. */
export const touchSubtasksLinkedTo = (ctx: Ctx, subtaskId: string): Promise<void> =>
  touchRows(ctx, 'subtasks', (eb) =>
    eb('id', 'in', eb.selectFrom('subtask_links').select('subtask_id').where('target_subtask_id', '=', subtaskId)),
  );
