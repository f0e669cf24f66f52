import { created, defineOperation, noContent, ok, type Operation } from '../../operations/define.js';
import { AgendaItemParams } from './agenda-items.schemas.js';
import { OwnerBody, OwnerListResponse, OwnerParams, OwnerResponse, ownerFieldCodes } from './owners.schemas.js';
import { addAgendaItemOwner, listAgendaItemOwners, removeAgendaItemOwner } from './owners.service.js';

const tag = 'Meetings';

export const ownerOperations: Operation[] = [
  defineOperation({
    id: 'list_agenda_item_owners',
    method: 'GET',
    path: '/api/external/meetings/{meetingId}/agenda-items/{agendaItemId}/owners',
    tag,
    summary: "The agenda item's owners.",
    params: AgendaItemParams,
    response: OwnerListResponse,
    run: async (ctx, { params }) =>
      ok({ owners: await listAgendaItemOwners(ctx, params.meetingId, params.agendaItemId) }),
  }),
  defineOperation({
    id: 'add_agenda_item_owner',
    method: 'POST',
    path: '/api/external/meetings/{meetingId}/agenda-items/{agendaItemId}/owners',
    tag,
    summary:
      'Add an owner: userId, presetId, or externalName/externalEmail; the same owner again answers the existing one (200).',
    params: AgendaItemParams,
    body: OwnerBody,
    errors: ['OWNER_REQUIRED'],
    answersExisting: true,
    fieldCodes: ownerFieldCodes,
    response: OwnerResponse,
    successStatus: 201,
    run: async (ctx, { params, body }) => {
      const { owner, created: isNew } = await addAgendaItemOwner(ctx, params.meetingId, params.agendaItemId, body);
      return isNew ? created({ owner }) : ok({ owner });
    },
  }),
  defineOperation({
    id: 'remove_agenda_item_owner',
    method: 'DELETE',
    path: '/api/external/meetings/{meetingId}/agenda-items/{agendaItemId}/owners/{ownerId}',
    tag,
    summary: 'Remove an owner from the agenda item.',
    params: OwnerParams,
    successStatus: 204,
    run: async (ctx, { params }) => {
      await removeAgendaItemOwner(ctx, params.meetingId, params.agendaItemId, params.ownerId);
      return noContent();
    },
  }),
];
