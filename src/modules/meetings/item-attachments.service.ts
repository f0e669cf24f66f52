import type { Ctx } from '../../db/context.js';
import {
  insertAttachments,
  listAttachments,
  parseAttachmentLinks,
  removeAttachmentsOf,
  type AttachmentView,
} from '../issues/index.js';
import { touchRows } from '../../db/touch.js';
import { snapshotForEvent } from '../visibility/index.js';
import { agendaItemPresenter, recordAgendaItemRelationsWrite } from './agenda-item-events.js';
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
  const { meeting, item } = await requireAgendaItem(ctx, meetingId, itemId);
  const links = parseAttachmentLinks(body);
  const before = await snapshotForEvent(ctx, agendaItemPresenter, item);
  const attachments = await insertAttachments(ctx, { kind: 'agenda_item', id: item.id }, links);
  // The item's GET lists its attachments, so its updatedAt and version move (db/touch.ts).
  await touchRows(ctx, 'agenda_items', (eb) => eb('id', '=', item.id));
  await recordAgendaItemRelationsWrite(ctx, meeting, item.id, before);
  return attachments;
}

export const removeAttachmentsOfItems = (ctx: Ctx, itemIds: string[]) =>
  removeAttachmentsOf(ctx, 'agenda_item', itemIds);
