import { created, defineOperation, noContent, ok, type Operation } from '../../operations/define.js';
import { AddAttachmentsBody, AttachmentListResponse, attachmentFieldCodes } from '../issues/index.js';
import {
  AgendaItemListResponse,
  AgendaItemParams,
  AgendaItemResponse,
  AgendaTagsResponse,
  CreateAgendaItemBody,
  UpdateAgendaItemBody,
  agendaItemFieldCodes,
} from './agenda-items.schemas.js';
import {
  createAgendaItem,
  deleteAgendaItem,
  getAgendaItem,
  listAgendaItems,
  updateAgendaItem,
} from './agenda-items.service.js';
import { listAgendaTagSuggestions } from './agenda-tags.service.js';
import { addAgendaItemAttachments, listAgendaItemAttachments } from './item-attachments.service.js';
import { MeetingIdParams } from './meetings.schemas.js';
import { defineResource } from '../../operations/versioned.js';

/** The versioned record its GET, PATCH and DELETE share (ETag, If-Match). */
const agendaItemResource = defineResource({
  name: 'agendaItem',
  table: 'agenda_items',
  idField: 'agendaItemId',
  read: (ctx, params: { meetingId: string; agendaItemId: string }) =>
    getAgendaItem(ctx, params.meetingId, params.agendaItemId),
});

const tag = 'Meetings';
const itemPath = '/api/external/meetings/{meetingId}/agenda-items/{agendaItemId}';

export const agendaItemOperations: Operation[] = [
  defineOperation({
    id: 'list_agenda_tags',
    method: 'GET',
    path: '/api/external/meetings/{meetingId}/agenda-tags',
    tag,
    summary:
      "Tag suggestions: managed tags, tags on visible issues, and tags of agenda items linked to the meeting's project.",
    params: MeetingIdParams,
    response: AgendaTagsResponse,
    run: async (ctx, { params }) => ok(await listAgendaTagSuggestions(ctx, params.meetingId)),
  }),
  defineOperation({
    id: 'list_agenda_items',
    method: 'GET',
    path: '/api/external/meetings/{meetingId}/agenda-items',
    tag,
    summary: 'The agenda: groups in their order, items in their order inside a group, ungrouped items last.',
    params: MeetingIdParams,
    response: AgendaItemListResponse,
    run: async (ctx, { params }) => ok({ agendaItems: await listAgendaItems(ctx, params.meetingId) }),
  }),
  defineOperation({
    id: 'create_agenda_item',
    method: 'POST',
    path: '/api/external/meetings/{meetingId}/agenda-items',
    tag,
    summary: 'Add an agenda item (last in its group); status defaults to "To discuss".',
    params: MeetingIdParams,
    body: CreateAgendaItemBody,
    errors: ['PROJECT_NOT_FOUND', 'TAG_FIELD_CONFLICT'],
    requiredFields: ['title'],
    fieldCodes: agendaItemFieldCodes,
    response: AgendaItemResponse,
    successStatus: 201,
    run: async (ctx, { params, body }) => created({ agendaItem: await createAgendaItem(ctx, params.meetingId, body) }),
  }),
  defineOperation({
    id: 'get_agenda_item',
    resource: agendaItemResource,
    method: 'GET',
    path: itemPath,
    tag,
    summary: 'One agenda item with its owners, links and attachments.',
    params: AgendaItemParams,
    response: AgendaItemResponse,
    run: async (ctx, { params }) => ok({ agendaItem: await getAgendaItem(ctx, params.meetingId, params.agendaItemId) }),
  }),
  defineOperation({
    id: 'update_agenda_item',
    resource: agendaItemResource,
    method: 'PATCH',
    path: itemPath,
    tag,
    summary: 'Update an agenda item; agendaGroupId (null ungroups) and position move it; tags replace the set.',
    params: AgendaItemParams,
    body: UpdateAgendaItemBody,
    errors: ['PROJECT_NOT_FOUND', 'TAG_FIELD_CONFLICT', 'UNSUPPORTED_ACTION'],
    fieldCodes: agendaItemFieldCodes,
    response: AgendaItemResponse,
    run: async (ctx, { params, body }) =>
      ok({ agendaItem: await updateAgendaItem(ctx, params.meetingId, params.agendaItemId, body) }),
  }),
  defineOperation({
    id: 'delete_agenda_item',
    resource: agendaItemResource,
    method: 'DELETE',
    path: itemPath,
    tag,
    summary: 'Delete an agenda item with its owners, links and attachments; issues made from it stay.',
    params: AgendaItemParams,
    successStatus: 204,
    run: async (ctx, { params }) => {
      await deleteAgendaItem(ctx, params.meetingId, params.agendaItemId);
      return noContent();
    },
  }),
  defineOperation({
    id: 'list_agenda_item_attachments',
    method: 'GET',
    path: `${itemPath}/attachments`,
    tag,
    summary: "The agenda item's link attachments, oldest first.",
    params: AgendaItemParams,
    response: AttachmentListResponse,
    run: async (ctx, { params }) =>
      ok({ attachments: await listAgendaItemAttachments(ctx, params.meetingId, params.agendaItemId) }),
  }),
  defineOperation({
    id: 'add_agenda_item_attachments',
    method: 'POST',
    path: `${itemPath}/attachments`,
    tag,
    summary: 'Attach 1–20 http(s) links to the agenda item; all or none are attached.',
    params: AgendaItemParams,
    body: AddAttachmentsBody,
    errors: ['ATTACHMENT_LIMIT_EXCEEDED'],
    fieldCodes: attachmentFieldCodes,
    response: AttachmentListResponse,
    successStatus: 201,
    run: async (ctx, { params, body }) =>
      created({ attachments: await addAgendaItemAttachments(ctx, params.meetingId, params.agendaItemId, body) }),
  }),
];
