import type { Ctx } from '../../core/context.js';
import {
  insertAttachments,
  listAttachments,
  listAttachmentsOf,
  parseAttachmentLinks,
  removeAttachmentsOf,
  type AttachmentView,
} from '../issues/attachments.service.js';
import { requireAgendaItem } from './meeting-access.js';

/** Link attachments of agenda items, in the table and format issue attachments use. */

export async function listAgendaItemAttachments(
  ctx: Ctx,
  meetingId: string,
  itemId: string,
): Promise<AttachmentView[]> {
  const { item } = await requireAgendaItem(ctx, meetingId, itemId);
  return listAttachments(ctx, { kind: 'agenda_item', id: item.id });
}

/** 1–20 http(s) links; one bad link attaches none. Answers the new attachments. */
export async function addAgendaItemAttachments(
  ctx: Ctx,
  meetingId: string,
  itemId: string,
  body: unknown,
): Promise<AttachmentView[]> {
  const { item } = await requireAgendaItem(ctx, meetingId, itemId);
  return insertAttachments(ctx, { kind: 'agenda_item', id: item.id }, parseAttachmentLinks(body));
}

/** Attachments of many items, keyed by item id (one query). */
export const listAttachmentsOfItems = (ctx: Ctx, itemIds: string[]) => listAttachmentsOf(ctx, 'agenda_item', itemIds);

export const removeAttachmentsOfItems = (ctx: Ctx, itemIds: string[]) =>
  removeAttachmentsOf(ctx, 'agenda_item', itemIds);
