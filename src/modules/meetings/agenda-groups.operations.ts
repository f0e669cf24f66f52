import { created, defineOperation, noContent, ok, type Operation } from '../../operations/define.js';
import {
  AgendaGroupBody,
  AgendaGroupListResponse,
  AgendaGroupOrderBody,
  AgendaGroupParams,
  AgendaGroupResponse,
  agendaGroupFieldCodes,
  agendaGroupOrderFieldCodes,
} from './agenda-groups.schemas.js';
import {
  createAgendaGroup,
  deleteAgendaGroup,
  listAgendaGroups,
  reorderAgendaGroups,
  updateAgendaGroup,
} from './agenda-groups.service.js';
import { MeetingIdParams } from './meetings.schemas.js';

const tag = 'Meetings';

export const agendaGroupOperations: Operation[] = [
  defineOperation({
    id: 'list_agenda_groups',
    method: 'GET',
    path: '/api/external/meetings/{meetingId}/agenda-groups',
    tag,
    summary: "The meeting's agenda groups in order.",
    params: MeetingIdParams,
    response: AgendaGroupListResponse,
    run: async (ctx, { params }) => ok({ agendaGroups: await listAgendaGroups(ctx, params.meetingId) }),
  }),
  defineOperation({
    id: 'create_agenda_group',
    method: 'POST',
    path: '/api/external/meetings/{meetingId}/agenda-groups',
    tag,
    summary: 'Create an agenda group; it goes last.',
    params: MeetingIdParams,
    body: AgendaGroupBody,
    requiredFields: ['name'],
    fieldCodes: agendaGroupFieldCodes,
    response: AgendaGroupResponse,
    successStatus: 201,
    run: async (ctx, { params, body }) =>
      created({ agendaGroup: await createAgendaGroup(ctx, params.meetingId, body) }),
  }),
  defineOperation({
    id: 'reorder_agenda_groups',
    method: 'PATCH',
    path: '/api/external/meetings/{meetingId}/agenda-groups',
    tag,
    summary: 'Reorder the groups (complete list of agendaGroupIds); their items move as blocks and keep their order.',
    params: MeetingIdParams,
    body: AgendaGroupOrderBody,
    requiredFields: ['agendaGroupIds'],
    fieldCodes: agendaGroupOrderFieldCodes,
    response: AgendaGroupListResponse,
    run: async (ctx, { params, body }) => ok({ agendaGroups: await reorderAgendaGroups(ctx, params.meetingId, body) }),
  }),
  defineOperation({
    id: 'update_agenda_group',
    method: 'PATCH',
    path: '/api/external/meetings/{meetingId}/agenda-groups/{agendaGroupId}',
    tag,
    summary: 'Rename or describe an agenda group.',
    params: AgendaGroupParams,
    body: AgendaGroupBody,
    errors: ['UNSUPPORTED_ACTION'],
    fieldCodes: agendaGroupFieldCodes,
    response: AgendaGroupResponse,
    run: async (ctx, { params, body }) =>
      ok({ agendaGroup: await updateAgendaGroup(ctx, params.meetingId, params.agendaGroupId, body) }),
  }),
  defineOperation({
    id: 'delete_agenda_group',
    method: 'DELETE',
    path: '/api/external/meetings/{meetingId}/agenda-groups/{agendaGroupId}',
    tag,
    summary: 'Delete an agenda group; its items stay in the meeting, ungrouped.',
    params: AgendaGroupParams,
    successStatus: 204,
    run: async (ctx, { params }) => {
      await deleteAgendaGroup(ctx, params.meetingId, params.agendaGroupId);
      return noContent();
    },
  }),
];
