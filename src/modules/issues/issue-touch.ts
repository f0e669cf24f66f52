import type { Ctx } from '../../db/context.js';
import type { IssueRow } from '../../db/schema.js';
import { touchRows } from '../../db/touch.js';
import { COMPLETED } from './links.presenter.js';
import { findStatusById, updateIssueRow, type IssueRecord } from './issues.repository.js';
import type { IssueSource } from './issues.presenter.js';

/**
 * Issues whose GET changes through a write that does not update their own row: their
 * `updated_at` and `version` move with it (db/touch.ts), so a sync by `updatedAt` and a
 * conditional GET see the change. What an issue presents from other records: its links
 * (each side's `links`, `isSatisfied` and `earliestStartDate` from the target's status
 * and due date), its project's key, and whether its source record still exists. Keys of
 * teams, statuses and issues never change; a change in what a caller may see (grants, a
 * record moving to a project it cannot see) is no change of the record.
 */

/** Both issues of a link made or removed: each shows its side in `links`. */
export async function touchLinkedIssues(ctx: Ctx, issueIds: string[]): Promise<void> {
  for (const issueId of new Set(issueIds)) await updateIssueRow(ctx, issueId, { updated_at: ctx.now });
}

/**
 * After an update of `before` with `changes`: the issues it blocks show whether it is
 * completed (`isSatisfied`) and, while it is not, its due date (`earliestStartDate`).
 */
export async function touchIssuesBlockedBy(ctx: Ctx, before: IssueRecord, changes: Partial<IssueRow>): Promise<void> {
  const wasCompleted = before.status_category === COMPLETED;
  const statusId = changes.status_id ?? before.status_id;
  const isCompleted =
    statusId === before.status_id ? wasCompleted : (await findStatusById(ctx, statusId))?.category === COMPLETED;
  const dueDateChanged = changes.due_date !== undefined && changes.due_date !== before.due_date;
  if (wasCompleted === isCompleted && !(dueDateChanged && !isCompleted)) return;
  await touchRows(ctx, 'issues', (eb) =>
    eb(
      'id',
      'in',
      eb
        .selectFrom('issue_links')
        .select('issue_id')
        .where('target_issue_id', '=', before.id)
        .where('type', '=', 'blocked_by'),
    ),
  );
}

/** The issues made from records being deleted: their `source` reads null from now on. */
export async function touchIssuesMadeFrom(ctx: Ctx, type: IssueSource['type'], sourceIds: string[]): Promise<void> {
  if (sourceIds.length === 0) return;
  await touchRows(ctx, 'issues', (eb) => eb.and([eb('source_id', 'in', sourceIds), eb('source_type', '=', type)]));
}
