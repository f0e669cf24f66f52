import { created, defineOperation, noContent, ok, type Operation } from '../../operations/define.js';
import { agendaGroupOperations } from './agenda-groups.operations.js';
import { agendaItemOperations } from './agenda-items.operations.js';
import { conversionOperations } from './conversion.operations.js';
import {
  ListMeetingsQuery,
  MeetingBody,
  MeetingIdParams,
  MeetingListResponse,
  MeetingResponse,
  meetingFieldCodes,
} from './meetings.schemas.js';
import { createMeeting, deleteMeeting, getMeeting, listMeetings, updateMeetingById } from './meetings.service.js';
import { ownerOperations } from './owners.operations.js';
import { settingsOperations } from './settings.operations.js';
import { workLinkOperations } from './work-links.operations.js';
import { defineResource } from '../../operations/versioned.js';

/** The versioned record its GET, PATCH and DELETE share (ETag, If-Match). */
const meetingResource = defineResource({
  name: 'meeting',
  table: 'meetings',
  idField: 'meetingId',
  read: (ctx, params: { meetingId: string }) => getMeeting(ctx, params.meetingId),
});

const tag = 'Meetings';

const meetingOperations: Operation[] = [
  defineOperation({
    id: 'list_meetings',
    method: 'GET',
    path: '/api/external/meetings',
    tag,
    summary: 'List meetings the caller can see, newest first or by last change (sort=updatedAt).',
    description: 'Active meetings unless archived=true or a sync (sort=updatedAt with updatedSince).',
    query: ListMeetingsQuery,
    errors: ['PROJECT_NOT_FOUND', 'TEAM_NOT_FOUND'],
    response: MeetingListResponse,
    run: async (ctx, { query }) => ok(await listMeetings(ctx, query)),
  }),
  defineOperation({
    id: 'create_meeting',
    method: 'POST',
    path: '/api/external/meetings',
    tag,
    summary: "Create a meeting; a meeting with only a project takes the project's team.",
    body: MeetingBody,
    errors: ['PROJECT_NOT_FOUND', 'PROJECT_TEAM_MISMATCH', 'RECURRENCE_START_REQUIRED', 'TEAM_NOT_FOUND'],
    requiredFields: ['title'],
    fieldCodes: meetingFieldCodes,
    response: MeetingResponse,
    successStatus: 201,
    run: async (ctx, { body }) => created({ meeting: await createMeeting(ctx, body) }),
  }),
  defineOperation({
    id: 'get_meeting',
    resource: meetingResource,
    method: 'GET',
    path: '/api/external/meetings/{meetingId}',
    tag,
    summary: 'One meeting with its work links.',
    params: MeetingIdParams,
    response: MeetingResponse,
    run: async (ctx, { params }) => ok({ meeting: await getMeeting(ctx, params.meetingId) }),
  }),
  defineOperation({
    id: 'update_meeting',
    resource: meetingResource,
    method: 'PATCH',
    path: '/api/external/meetings/{meetingId}',
    tag,
    summary: 'Update a meeting; archived true/false archives or restores it.',
    params: MeetingIdParams,
    body: MeetingBody,
    errors: [
      'PROJECT_NOT_FOUND',
      'PROJECT_TEAM_MISMATCH',
      'RECURRENCE_START_REQUIRED',
      'TEAM_NOT_FOUND',
      'UNSUPPORTED_ACTION',
    ],
    fieldCodes: meetingFieldCodes,
    response: MeetingResponse,
    run: async (ctx, { params, body }) => ok({ meeting: await updateMeetingById(ctx, params.meetingId, body) }),
  }),
  defineOperation({
    id: 'delete_meeting',
    resource: meetingResource,
    method: 'DELETE',
    path: '/api/external/meetings/{meetingId}',
    tag,
    summary: 'Delete a meeting with its agenda groups, items, owners, links and attachments; issues made from it stay.',
    params: MeetingIdParams,
    successStatus: 204,
    run: async (ctx, { params }) => {
      await deleteMeeting(ctx, params.meetingId);
      return noContent();
    },
  }),
];

export const meetingsOperations: Operation[] = [
  ...meetingOperations,
  ...settingsOperations,
  ...workLinkOperations,
  ...agendaGroupOperations,
  ...agendaItemOperations,
  ...ownerOperations,
  ...conversionOperations,
];
