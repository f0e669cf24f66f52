import type { AgendaOwnerRow } from '../../db/tables/meetings.js';

export const presentOwner = (o: AgendaOwnerRow) => ({
  ownerId: o.id,
  kind: o.kind,
  userId: o.user_id,
  presetId: o.preset_id,
  externalName: o.external_name,
  externalEmail: o.external_email,
  // An owner is never edited (a change is a removal and a new owner), so it was last updated when made.
  createdAt: o.created_at,
  updatedAt: o.created_at,
});

export type OwnerView = ReturnType<typeof presentOwner>;
