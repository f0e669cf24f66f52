import type { Ctx } from '../../db/context.js';
import { ApiError } from '../../core/errors.js';
import type { AgendaItemRow } from '../../db/tables/meetings.js';
import { findItemInMeeting } from './agenda-items.repository.js';
import { findVisibleMeeting, type MeetingWithKeys } from './meetings.repository.js';

/**
 * The access checks every meeting route starts with. MEETING_NOT_FOUND (absent, other
 * workspace, or a project the caller cannot see) is checked before AGENDA_ITEM_NOT_FOUND.
 */
export async function requireVisibleMeeting(ctx: Ctx, meetingId: string): Promise<MeetingWithKeys> {
  const meeting = await findVisibleMeeting(ctx, meetingId);
  if (!meeting) throw new ApiError('MEETING_NOT_FOUND', { meetingId });
  return meeting;
}

export async function requireAgendaItem(
  ctx: Ctx,
  meetingId: string,
  itemId: string,
): Promise<{ meeting: MeetingWithKeys; item: AgendaItemRow }> {
  const meeting = await requireVisibleMeeting(ctx, meetingId);
  const item = await findItemInMeeting(ctx, meeting.id, itemId);
  if (!item) throw new ApiError('AGENDA_ITEM_NOT_FOUND', { meetingId, agendaItemId: itemId });
  return { meeting, item };
}
