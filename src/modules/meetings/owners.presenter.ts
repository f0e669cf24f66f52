import type { AgendaOwnerRow } from '../../db/tables/meetings.js';

export const presentOwner = (o: AgendaOwnerRow) => ({
  ownerId: o.id,
  kind: o.kind,
  userId: o.user_id,
  presetId: o.preset_id,
  externalName: o.external_name,
  externalEmail: o.external_email,
  createdAt: o.created_at,
  // A client changes an owner by removing it and adding another; only deleting the preset it
  // was copied from changes one in place (presetId cleared).
  updatedAt: o.updated_at,
});

export type OwnerView = ReturnType<typeof presentOwner>;
