import { Type } from '@sinclair/typebox';
import type { ErrorCode } from '../../core/errors.js';
import { PathParam } from '../../operations/schema-helpers.js';
import { created, defineOperation, noContent, ok, type Operation, type Result } from '../../operations/define.js';
import { linkAgendaItem, linkMeeting, unlinkAgendaItem, unlinkMeeting } from './meeting-links.service.js';
import { WorkLinkBody, WorkLinkResponse, workLinkFieldCodes, type WorkLinkView } from '../work-links/index.js';

const tag = 'Meetings';
/** What a link's target may not be found as, by its type. */
const targetErrors: ErrorCode[] = [
  'AGENDA_ITEM_NOT_FOUND',
  'DISCUSSION_TOPIC_NOT_FOUND',
  'ISSUE_NOT_FOUND',
  'PROJECT_NOT_FOUND',
];

const MeetingParams = Type.Object({ meetingId: PathParam() });
const MeetingLinkParams = Type.Object({ meetingId: PathParam(), linkId: PathParam() });
const ItemParams = Type.Object({ meetingId: PathParam(), agendaItemId: PathParam() });
const ItemLinkParams = Type.Object({ meetingId: PathParam(), agendaItemId: PathParam(), linkId: PathParam() });

/** 201 with a new link, 200 with the existing one when the target was already linked. */
const linkResult = ({ link, created: isNew }: { link: WorkLinkView; created: boolean }): Result =>
  isNew ? created({ link }) : ok({ link });

export const workLinkOperations: Operation[] = [
  defineOperation({
    id: 'link_meeting',
    method: 'POST',
    path: '/api/external/meetings/{meetingId}/links',
    tag,
    summary:
      'Link an issue, project, discussion topic or agenda item to the meeting; a duplicate answers the existing link.',
    params: MeetingParams,
    body: WorkLinkBody,
    errors: targetErrors,
    answersExisting: true,
    requiredFields: ['targetType'],
    fieldCodes: workLinkFieldCodes,
    response: WorkLinkResponse,
    successStatus: 201,
    run: async (ctx, { params, body }) => linkResult(await linkMeeting(ctx, params.meetingId, body)),
  }),
  defineOperation({
    id: 'unlink_meeting',
    method: 'DELETE',
    path: '/api/external/meetings/{meetingId}/links/{linkId}',
    tag,
    summary: 'Remove a work link of the meeting.',
    params: MeetingLinkParams,
    successStatus: 204,
    run: async (ctx, { params }) => {
      await unlinkMeeting(ctx, params.meetingId, params.linkId);
      return noContent();
    },
  }),
  defineOperation({
    id: 'link_agenda_item',
    method: 'POST',
    path: '/api/external/meetings/{meetingId}/agenda-items/{agendaItemId}/links',
    tag,
    summary:
      'Link an issue, project, discussion topic or agenda item to the agenda item; a duplicate answers the existing link.',
    params: ItemParams,
    body: WorkLinkBody,
    errors: targetErrors,
    answersExisting: true,
    requiredFields: ['targetType'],
    fieldCodes: workLinkFieldCodes,
    response: WorkLinkResponse,
    successStatus: 201,
    run: async (ctx, { params, body }) =>
      linkResult(await linkAgendaItem(ctx, params.meetingId, params.agendaItemId, body)),
  }),
  defineOperation({
    id: 'unlink_agenda_item',
    method: 'DELETE',
    path: '/api/external/meetings/{meetingId}/agenda-items/{agendaItemId}/links/{linkId}',
    tag,
    summary: 'Remove a work link of the agenda item.',
    params: ItemLinkParams,
    successStatus: 204,
    run: async (ctx, { params }) => {
      await unlinkAgendaItem(ctx, params.meetingId, params.agendaItemId, params.linkId);
      return noContent();
    },
  }),
];
