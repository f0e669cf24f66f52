import { Type } from '@sinclair/typebox';
import { Nullable } from '../../operations/schema-helpers.js';

export const AgendaGroupSchema = Type.Object({
  agendaGroupId: Type.String(), meetingId: Type.String(), name: Type.String(), description: Nullable(Type.String()),
  position: Type.Integer(), createdAt: Type.String(), updatedAt: Type.String(),
});

export const AgendaGroupBody = Type.Object({
  name: Type.Optional(Type.String({ description: 'Required on create (NAME_REQUIRED).' })),
  description: Type.Optional(Nullable(Type.String({ maxLength: 10_000 }))),
});
export const AgendaGroupOrderBody = Type.Object({
  agendaGroupIds: Type.Optional(Type.Array(Type.String(), { description: 'Every group of the meeting, once each, in the new order.' })),
});
export const agendaGroupFieldCodes = { name: 'NAME_REQUIRED' } as const;
export const agendaGroupOrderFieldCodes = { agendaGroupIds: 'INVALID_AGENDA_GROUP_ORDER' } as const;

export const AgendaGroupParams = Type.Object({ meetingId: Type.String(), agendaGroupId: Type.String() });
export const AgendaGroupResponse = Type.Object({ agendaGroup: AgendaGroupSchema });
export const AgendaGroupListResponse = Type.Object({ agendaGroups: Type.Array(AgendaGroupSchema) });
