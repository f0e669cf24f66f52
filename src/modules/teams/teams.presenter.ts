import type { StatusRow, TeamRow } from '../../db/schema.js';

export const presentTeam = (t: TeamRow) => ({
  teamId: t.id,
  teamKey: t.key,
  name: t.name,
  isDefault: t.is_default === 1,
  createdAt: t.created_at,
  updatedAt: t.updated_at,
});

export const presentStatus = (s: StatusRow, team: Pick<TeamRow, 'id' | 'key'>) => ({
  statusId: s.id,
  statusKey: s.key,
  name: s.name,
  category: s.category,
  position: s.position,
  teamId: team.id,
  teamKey: team.key,
  createdAt: s.created_at,
  updatedAt: s.updated_at,
});
