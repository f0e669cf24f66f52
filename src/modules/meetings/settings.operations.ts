import { created, defineOperation, noContent, ok, type Operation } from '../../operations/define.js';
import {
  createAgendaStatus,
  deleteAgendaStatus,
  listAgendaStatuses,
  renameAgendaStatus,
  reorderAgendaStatuses,
} from './agenda-statuses.service.js';
import { createPreset, deletePreset, listPresets, updatePreset } from './presets.service.js';
import {
  AgendaStatusBody,
  AgendaStatusListResponse,
  AgendaStatusOrderBody,
  AgendaStatusResponse,
  PresetBody,
  PresetIdParams,
  PresetResponse,
  SettingsResponse,
  StatusIdParams,
  agendaStatusFieldCodes,
  agendaStatusOrderFieldCodes,
} from './settings.schemas.js';

const tag = 'Meetings';
const presetFieldCodes = { name: 'NAME_REQUIRED' } as const;

export const settingsOperations: Operation[] = [
  defineOperation({
    id: 'get_meeting_settings',
    method: 'GET',
    path: '/api/external/meetings/settings',
    tag,
    summary: 'Workflow settings of meetings: the ordered agenda statuses and the external owner presets.',
    response: SettingsResponse,
    run: async (ctx) =>
      ok({ settings: { agendaStatuses: await listAgendaStatuses(ctx), externalOwnerPresets: await listPresets(ctx) } }),
  }),
  defineOperation({
    id: 'create_external_owner_preset',
    method: 'POST',
    path: '/api/external/meetings/settings/external-users',
    tag,
    summary: 'Create an external owner preset (copied onto agenda items; creates no account).',
    body: PresetBody,
    requiredFields: ['name'],
    fieldCodes: presetFieldCodes,
    response: PresetResponse,
    successStatus: 201,
    run: async (ctx, { body }) => created({ externalOwnerPreset: await createPreset(ctx, body) }),
  }),
  defineOperation({
    id: 'update_external_owner_preset',
    method: 'PATCH',
    path: '/api/external/meetings/settings/external-users/{presetId}',
    tag,
    summary: 'Update a preset; owner copies already on agenda items are unchanged.',
    params: PresetIdParams,
    body: PresetBody,
    errors: ['UNSUPPORTED_ACTION'],
    fieldCodes: presetFieldCodes,
    response: PresetResponse,
    run: async (ctx, { params, body }) => ok({ externalOwnerPreset: await updatePreset(ctx, params.presetId, body) }),
  }),
  defineOperation({
    id: 'delete_external_owner_preset',
    method: 'DELETE',
    path: '/api/external/meetings/settings/external-users/{presetId}',
    tag,
    summary: 'Delete a preset; owner copies already on agenda items are unchanged.',
    params: PresetIdParams,
    successStatus: 204,
    run: async (ctx, { params }) => {
      await deletePreset(ctx, params.presetId);
      return noContent();
    },
  }),
  defineOperation({
    id: 'create_agenda_status',
    method: 'POST',
    path: '/api/external/meetings/settings/agenda-statuses',
    tag,
    summary: 'Create a custom agenda status; it goes last.',
    body: AgendaStatusBody,
    requiredFields: ['name'],
    fieldCodes: agendaStatusFieldCodes,
    response: AgendaStatusResponse,
    successStatus: 201,
    run: async (ctx, { body }) => created({ agendaStatus: await createAgendaStatus(ctx, body) }),
  }),
  defineOperation({
    id: 'reorder_agenda_statuses',
    method: 'PATCH',
    path: '/api/external/meetings/settings/agenda-statuses',
    tag,
    summary:
      'Reorder agenda statuses: orderedStatusIds lists every workspace status once; item assignments are unchanged.',
    body: AgendaStatusOrderBody,
    requiredFields: ['orderedStatusIds'],
    fieldCodes: agendaStatusOrderFieldCodes,
    response: AgendaStatusListResponse,
    run: async (ctx, { body }) => ok({ agendaStatuses: await reorderAgendaStatuses(ctx, body) }),
  }),
  defineOperation({
    id: 'update_agenda_status',
    method: 'PATCH',
    path: '/api/external/meetings/settings/agenda-statuses/{statusId}',
    tag,
    summary: 'Rename a custom agenda status; system statuses cannot be renamed.',
    params: StatusIdParams,
    body: AgendaStatusBody,
    errors: ['UNSUPPORTED_ACTION'],
    fieldCodes: agendaStatusFieldCodes,
    response: AgendaStatusResponse,
    run: async (ctx, { params, body }) => ok({ agendaStatus: await renameAgendaStatus(ctx, params.statusId, body) }),
  }),
  defineOperation({
    id: 'delete_agenda_status',
    method: 'DELETE',
    path: '/api/external/meetings/settings/agenda-statuses/{statusId}',
    tag,
    summary: 'Delete a custom agenda status that no agenda item uses.',
    params: StatusIdParams,
    errors: ['AGENDA_STATUS_DELETE_BLOCKED'],
    successStatus: 204,
    run: async (ctx, { params }) => {
      await deleteAgendaStatus(ctx, params.statusId);
      return noContent();
    },
  }),
];
