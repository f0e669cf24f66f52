import type { Ctx } from '../../core/context.js';
import type { AttachmentRow } from '../../db/tables/issues.js';

/** What an attachment hangs on: an issue or an agenda item (one table serves both). */
export type AttachmentOwner = { kind: 'issue'; id: string } | { kind: 'agenda_item'; id: string };

export async function insertAttachmentRows(ctx: Ctx, rows: AttachmentRow[]): Promise<void> {
  if (rows.length > 0) await ctx.db.insertInto('attachments').values(rows).execute();
}

/** Oldest first. */
export const listAttachmentRows = (ctx: Ctx, owner: AttachmentOwner) =>
  ctx.db.selectFrom('attachments').selectAll().where('workspace_id', '=', ctx.workspace.id)
    .where(owner.kind === 'issue' ? 'issue_id' : 'agenda_item_id', '=', owner.id)
    .orderBy('created_at').orderBy('id').execute();
