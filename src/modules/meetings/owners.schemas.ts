import { Type } from '@sinclair/typebox';
import { Nullable } from '../../operations/schema-helpers.js';

export const OwnerSchema = Type.Object({
  ownerId: Type.String(), kind: Type.String({ description: 'internal | external' }), userId: Nullable(Type.String()),
  presetId: Nullable(Type.String()), externalName: Nullable(Type.String()), externalEmail: Nullable(Type.String()),
  createdAt: Type.String(), updatedAt: Type.String(),
});

/** Loosely typed so each bad value answers its own code (OWNER_NOT_IN_WORKSPACE, OWNER_NOT_FOUND, OWNER_REQUIRED). */
export const OwnerBody = Type.Object({
  userId: Type.Optional(Type.Unknown({ description: 'usr_… or api-token:<name> (internal owner).' })),
  presetId: Type.Optional(Type.Unknown({ description: 'An external owner preset; its values are copied.' })),
  externalName: Type.Optional(Type.Unknown({ description: 'External owner\'s name.' })),
  externalEmail: Type.Optional(Type.Unknown({ description: 'External owner\'s email.' })),
});

export const OwnerParams = Type.Object({ meetingId: Type.String(), agendaItemId: Type.String(), ownerId: Type.String() });
export const OwnerResponse = Type.Object({ owner: OwnerSchema });
export const OwnerListResponse = Type.Object({ owners: Type.Array(OwnerSchema) });
