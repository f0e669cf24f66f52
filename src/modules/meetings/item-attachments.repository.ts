import type { Ctx } from '../../core/context.js';
import type { AttachmentRow } from '../../db/tables/issues.js';

/**
 * Agenda item rows of the shared attachments table, for many items at once: the
 * attachments service answers one owner per call, and an agenda read must not cost one
 * query per item.
 */
export async function listItemAttachmentRows(ctx: Ctx, itemIds: string[]): Promise<AttachmentRow[]> {
  if (itemIds.length === 0) return [];
  return ctx.db.selectFrom('attachments').selectAll()
    .where('workspace_id', '=', ctx.workspace.id).where('agenda_item_id', 'in', itemIds)
    .orderBy('created_at').orderBy('id').execute();
}

export async function deleteItemAttachmentRows(ctx: Ctx, itemIds: string[]): Promise<void> {
  if (itemIds.length === 0) return;
  await ctx.db.deleteFrom('attachments').where('workspace_id', '=', ctx.workspace.id).where('agenda_item_id', 'in', itemIds).execute();
}
