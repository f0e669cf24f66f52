import type { AgendaOwnerRow } from '../../db/tables/meetings.js';

export const presentOwner = (o: AgendaOwnerRow) => ({
  ownerId: o.id,
  kind: o.kind,
  userId: o.user_id,
  presetId: o.preset_id,
  externalName: o.external_name,
  externalEmail: o.external_email,
});

export type OwnerView = ReturnType<typeof presentOwner>;
