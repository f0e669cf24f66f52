import type { AgendaStatusRow, ExternalOwnerPresetRow } from '../../db/tables/meetings.js';

export const presentAgendaStatus = (s: AgendaStatusRow) => ({
  statusId: s.id,
  name: s.name,
  system: s.system === 1,
  position: s.position,
  createdAt: s.created_at,
  updatedAt: s.updated_at,
});

export const presentPreset = (p: ExternalOwnerPresetRow) => ({
  presetId: p.id,
  name: p.name,
  externalName: p.external_name,
  externalEmail: p.external_email,
  createdAt: p.created_at,
  updatedAt: p.updated_at,
});

export type AgendaStatusView = ReturnType<typeof presentAgendaStatus>;
export type PresetView = ReturnType<typeof presentPreset>;
