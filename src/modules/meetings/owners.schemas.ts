import { Type } from '@sinclair/typebox';
import type { ErrorCode } from '../../core/errors.js';
import { Nullable, PathParam, Ref, Text } from '../../operations/schema-helpers.js';
import { EmailText } from './settings.schemas.js';

export const OwnerSchema = Type.Object({
  ownerId: Type.String(),
  kind: Type.String({ description: 'internal | external' }),
  userId: Nullable(Type.String()),
  presetId: Nullable(Type.String()),
  externalName: Nullable(Type.String()),
  externalEmail: Nullable(Type.String()),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});

/** One kind of owner per request; none at all is OWNER_REQUIRED (the service's check). */
export const OwnerBody = Type.Object({
  userId: Type.Optional(Nullable(Ref('usr_… or api-token:<name> (internal owner).'))),
  presetId: Type.Optional(Nullable(Ref('An external owner preset; its values are copied.'))),
  externalName: Type.Optional(Nullable(Text("External owner's name."))),
  externalEmail: Type.Optional(Nullable(EmailText("External owner's email."))),
});
/** A wrong JSON type answers the codes an unknown value would. */
export const ownerFieldCodes: Record<string, ErrorCode> = {
  userId: 'OWNER_NOT_IN_WORKSPACE',
  presetId: 'OWNER_NOT_FOUND',
};

export const OwnerParams = Type.Object({ meetingId: PathParam(), agendaItemId: PathParam(), ownerId: PathParam() });
export const OwnerResponse = Type.Object({ owner: OwnerSchema });
export const OwnerListResponse = Type.Object({ owners: Type.Array(OwnerSchema) });
