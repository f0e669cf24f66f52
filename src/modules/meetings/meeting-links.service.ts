import type { Ctx } from '../../db/context.js';
import { snapshotForEvent } from '../visibility/index.js';
import { agendaItemPresenter, recordAgendaItemRelationsWrite } from './agenda-item-events.js';
import { requireAgendaItem, requireVisibleMeeting } from './meeting-access.js';
import { meetingPresenter, recordMeetingWrite } from './meeting-events.js';
import {
  addWorkLink,
  removeWorkLink,
  resolveWorkTarget,
  type WorkLinkView,
  type WorkTargetInput,
} from '../work-links/index.js';

/**
 * Work links of meetings and agenda items: the owner must be visible before its links are
 * touched. A link added or removed changes the owner's GET (and version), so it is an
 * `meeting.updated` / `agenda_item.updated` event with the links before and after.
 */

type LinkResult = { link: WorkLinkView; created: boolean };

export async function linkMeeting(ctx: Ctx, meetingId: string, input: WorkTargetInput): Promise<LinkResult> {
  const meeting = await requireVisibleMeeting(ctx, meetingId);
  const target = await resolveWorkTarget(ctx, input);
  const before = await snapshotForEvent(ctx, meetingPresenter, meeting);
  const result = await addWorkLink(ctx, { type: 'meeting', id: meeting.id }, target);
  if (result.created)
    await recordMeetingWrite(ctx, 'meeting.updated', await requireVisibleMeeting(ctx, meeting.id), before);
  return result;
}

export async function unlinkMeeting(ctx: Ctx, meetingId: string, linkId: string): Promise<void> {
  const meeting = await requireVisibleMeeting(ctx, meetingId);
  const before = await snapshotForEvent(ctx, meetingPresenter, meeting);
  await removeWorkLink(ctx, { type: 'meeting', id: meeting.id }, linkId);
  await recordMeetingWrite(ctx, 'meeting.updated', await requireVisibleMeeting(ctx, meeting.id), before);
}

export async function linkAgendaItem(
  ctx: Ctx,
  meetingId: string,
  itemId: string,
  input: WorkTargetInput,
): Promise<LinkResult> {
  const { meeting, item } = await requireAgendaItem(ctx, meetingId, itemId);
  const target = await resolveWorkTarget(ctx, input);
  const before = await snapshotForEvent(ctx, agendaItemPresenter, item);
  const result = await addWorkLink(ctx, { type: 'agenda_item', id: item.id }, target);
  if (result.created) await recordAgendaItemRelationsWrite(ctx, meeting, item.id, before);
  return result;
}

export async function unlinkAgendaItem(ctx: Ctx, meetingId: string, itemId: string, linkId: string): Promise<void> {
  const { meeting, item } = await requireAgendaItem(ctx, meetingId, itemId);
  const before = await snapshotForEvent(ctx, agendaItemPresenter, item);
  await removeWorkLink(ctx, { type: 'agenda_item', id: item.id }, linkId);
  await recordAgendaItemRelationsWrite(ctx, meeting, item.id, before);
}
