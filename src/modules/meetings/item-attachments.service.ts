import type { Ctx } from '../../core/context.js';
import { presentAttachment } from '../issues/attachments.presenter.js';
import { insertAttachments, listAttachments, parseAttachmentLinks, type AttachmentView } from '../issues/attachments.service.js';
import { deleteItemAttachmentRows, listItemAttachmentRows } from './item-attachments.repository.js';
import { requireAgendaItem } from './meeting-access.js';

/** Link attachments of agenda items, in the table and format issue attachments use. */

export async function listAgendaItemAttachments(ctx: Ctx, meetingId: string, itemId: string): Promise<AttachmentView[]> {
  const { item } = await requireAgendaItem(ctx, meetingId, itemId);
  return listAttachments(ctx, { kind: 'agenda_item', id: item.id });
}

/** 1–20 http(s) links; one bad link attaches none. Answers the new attachments. */
export async function addAgendaItemAttachments(ctx: Ctx, meetingId: string, itemId: string, body: unknown): Promise<AttachmentView[]> {
  const { item } = await requireAgendaItem(ctx, meetingId, itemId);
  return insertAttachments(ctx, { kind: 'agenda_item', id: item.id }, parseAttachmentLinks(body));
}

/** Attachments of many items, keyed by item id (one query). */
export async function listAttachmentsOfItems(ctx: Ctx, itemIds: string[]): Promise<Map<string, AttachmentView[]>> {
  const byItem = new Map<string, AttachmentView[]>(itemIds.map((id) => [id, []]));
  for (const row of await listItemAttachmentRows(ctx, itemIds)) byItem.get(row.agenda_item_id as string)?.push(presentAttachment(row));
  return byItem;
}

export const removeAttachmentsOfItems = deleteItemAttachmentRows;
