import type { Ctx } from '../../core/context.js';
import { requireAgendaItem, requireVisibleMeeting } from './meeting-access.js';
import {
  addWorkLink,
  removeWorkLink,
  resolveWorkTarget,
  type WorkLinkOwner,
  type WorkLinkView,
  type WorkTargetInput,
} from '../work-links/work-links.service.js';

/** Work links of meetings and agenda items: the owner must be visible before its links are touched. */

type LinkResult = { link: WorkLinkView; created: boolean };

const meetingOwner = async (ctx: Ctx, meetingId: string): Promise<WorkLinkOwner> => ({
  type: 'meeting',
  id: (await requireVisibleMeeting(ctx, meetingId)).id,
});

const itemOwner = async (ctx: Ctx, meetingId: string, itemId: string): Promise<WorkLinkOwner> => ({
  type: 'agenda_item',
  id: (await requireAgendaItem(ctx, meetingId, itemId)).item.id,
});

async function link(ctx: Ctx, owner: WorkLinkOwner, input: WorkTargetInput): Promise<LinkResult> {
  return addWorkLink(ctx, owner, await resolveWorkTarget(ctx, input));
}

export const linkMeeting = async (ctx: Ctx, meetingId: string, input: WorkTargetInput): Promise<LinkResult> =>
  link(ctx, await meetingOwner(ctx, meetingId), input);

export const unlinkMeeting = async (ctx: Ctx, meetingId: string, linkId: string): Promise<void> =>
  removeWorkLink(ctx, await meetingOwner(ctx, meetingId), linkId);

export const linkAgendaItem = async (
  ctx: Ctx,
  meetingId: string,
  itemId: string,
  input: WorkTargetInput,
): Promise<LinkResult> => link(ctx, await itemOwner(ctx, meetingId, itemId), input);

export const unlinkAgendaItem = async (ctx: Ctx, meetingId: string, itemId: string, linkId: string): Promise<void> =>
  removeWorkLink(ctx, await itemOwner(ctx, meetingId, itemId), linkId);
