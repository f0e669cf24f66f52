import type { Ctx } from '../../db/context.js';
import { newId } from '../../core/ids.js';
import type { MilestoneActivityRow } from '../../db/tables/planning.js';
import { deleteActivity, insertActivity, listActivityRows } from './milestone-activity.repository.js';
import { presentActivity, type MilestoneView } from './milestones.presenter.js';

/** The milestone fields whose changes the history records, by their public names. */
const TRACKED_FIELDS = [
  'title',
  'issueContainerId',
  'ownerId',
  'status',
  'startDate',
  'dueDate',
  'order',
  'tags',
] as const;

type Entry = Pick<MilestoneActivityRow, 'action' | 'field' | 'from_value' | 'to_value'>;

const json = (value: unknown): string => JSON.stringify(value ?? null);

function write(ctx: Ctx, milestoneId: string, entries: Entry[]): Promise<void> {
  return insertActivity(
    ctx,
    entries.map((entry) => ({
      id: newId('act', ctx.nowMs),
      workspace_id: ctx.workspace.id,
      milestone_id: milestoneId,
      ...entry,
      actor_id: ctx.principal.id,
      created_at: ctx.now,
    })),
  );
}

export const recordMilestoneCreated = (ctx: Ctx, milestoneId: string) =>
  write(ctx, milestoneId, [{ action: 'created', field: null, from_value: null, to_value: null }]);

/** One `updated` entry per tracked field whose value differs between the two views. */
export function recordMilestoneChanges(ctx: Ctx, before: MilestoneView, after: MilestoneView): Promise<void> {
  const entries: Entry[] = TRACKED_FIELDS.filter((field) => json(before[field]) !== json(after[field])).map(
    (field) => ({ action: 'updated', field, from_value: json(before[field]), to_value: json(after[field]) }),
  );
  return write(ctx, after.milestoneId, entries);
}

export const recordMilestoneCommented = (ctx: Ctx, milestoneId: string, commentId: string) =>
  write(ctx, milestoneId, [{ action: 'commented', field: null, from_value: null, to_value: json(commentId) }]);

export async function listMilestoneActivity(ctx: Ctx, milestoneId: string) {
  return (await listActivityRows(ctx, milestoneId)).map(presentActivity);
}

export const forgetMilestoneActivity = deleteActivity;
