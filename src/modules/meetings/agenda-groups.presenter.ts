import type { AgendaGroupRow } from '../../db/tables/meetings.js';

export const presentAgendaGroup = (g: AgendaGroupRow) => ({
  agendaGroupId: g.id,
  meetingId: g.meeting_id,
  name: g.name,
  description: g.description,
  position: g.position,
  createdAt: g.created_at,
  updatedAt: g.updated_at,
});

export type AgendaGroupView = ReturnType<typeof presentAgendaGroup>;
