import type { Ctx } from '../../db/context.js';
import type { EventType } from '../../events/outbox.js';
import { recordWriteEvent } from '../../events/resource-event.js';
import {
  linkTargets,
  listReferences,
  ownProjectFields,
  presentWrite,
  type Before,
  type EventPresenter,
} from '../visibility/index.js';
import { listWorkLinks } from '../work-links/index.js';
import { presentMeeting, type MeetingView } from './meetings.presenter.js';
import type { MeetingWithKeys } from './meetings.repository.js';

/**
 * Meeting presentation, for answers and for `meeting.*` events (docs/events.md). A meeting
 * event belongs to the meeting's project (none: every subscriber of the workspace), as the
 * meeting is visible by it; its links to what some subscribers cannot see are marked.
 */

/** Meetings with their links (those the reader can see), one query for all. */
export async function presentMeetings(ctx: Ctx, rows: MeetingWithKeys[]): Promise<MeetingView[]> {
  const links = await listWorkLinks(
    ctx,
    'meeting',
    rows.map((m) => m.id),
  );
  return rows.map((m) => presentMeeting(m, links.get(m.id) ?? []));
}

export const meetingPresenter: EventPresenter<MeetingWithKeys, MeetingView> = {
  present: presentMeetings,
  references: (row, view) => [
    ...ownProjectFields(view, ['projectId', 'projectKey'], row.project_id),
    ...listReferences('links', linkTargets(view.links)),
  ],
};

/**
 * Records `type` for the meeting as just written (`row`, read after the write) and answers
 * the caller's view; with `before`, the event carries `changes`.
 */
export async function recordMeetingWrite(
  ctx: Ctx,
  type: Extract<EventType, `meeting.${string}`>,
  row: MeetingWithKeys,
  before?: Before<MeetingWithKeys, MeetingView>,
): Promise<MeetingView> {
  const written = await presentWrite(ctx, meetingPresenter, row, before);
  await recordWriteEvent(ctx, type, 'meeting', row.project_id, written);
  return written.view;
}
