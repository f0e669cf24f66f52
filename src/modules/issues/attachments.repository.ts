import type { Ctx } from '../../db/context.js';
import type { AttachmentRow } from '../../db/tables/issues.js';

/** What an attachment hangs on: an issue or an agenda item (one table serves both). */
export type AttachmentOwner = { kind: 'issue'; id: string } | { kind: 'agenda_item'; id: string };

export async function insertAttachmentRows(ctx: Ctx, rows: AttachmentRow[]): Promise<void> {
  if (rows.length > 0) await ctx.db.insertInto('attachments').values(rows).execute();
}

const ownerColumn = (kind: AttachmentOwner['kind']) => (kind === 'issue' ? 'issue_id' : 'agenda_item_id');

/** Attachments of many owners of one kind in one query, oldest first. */
export async function listAttachmentRows(
  ctx: Ctx,
  kind: AttachmentOwner['kind'],
  ownerIds: string[],
): Promise<AttachmentRow[]> {
  if (ownerIds.length === 0) return [];
  return ctx.db
    .selectFrom('attachments')
    .selectAll()
    .where('workspace_id', '=', ctx.workspace.id)
    .where(ownerColumn(kind), 'in', ownerIds)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export async function deleteAttachmentRows(ctx: Ctx, kind: AttachmentOwner['kind'], ownerIds: string[]): Promise<void> {
  if (ownerIds.length === 0) return;
  await ctx.db
    .deleteFrom('attachments')
    .where('workspace_id', '=', ctx.workspace.id)
    .where(ownerColumn(kind), 'in', ownerIds)
    .execute();
}
