import { LIMITS } from '../../core/limits.js';
import { Type } from '@sinclair/typebox';
import { Description, NonBlank, Nullable, PathParam, Ref, Text } from '../../operations/schema-helpers.js';

export const AgendaGroupSchema = Type.Object({
  agendaGroupId: Type.String(),
  meetingId: Type.String(),
  name: Type.String(),
  description: Nullable(Type.String()),
  position: Type.Integer(),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});

export const AgendaGroupBody = Type.Object({
  name: Type.Optional(NonBlank(Text('Required on create (NAME_REQUIRED).'))),
  description: Type.Optional(Nullable(Description())),
});
export const AgendaGroupOrderBody = Type.Object({
  agendaGroupIds: Type.Optional(
    Type.Array(Ref(), {
      maxItems: LIMITS.ordered,
      description: 'Every group of the meeting, once each, in the new order (a meeting has at most 1,000 groups).',
    }),
  ),
});
export const agendaGroupFieldCodes = { name: 'NAME_REQUIRED' } as const;
export const agendaGroupOrderFieldCodes = { agendaGroupIds: 'INVALID_AGENDA_GROUP_ORDER' } as const;

export const AgendaGroupParams = Type.Object({ meetingId: PathParam(), agendaGroupId: PathParam() });
export const AgendaGroupResponse = Type.Object({ agendaGroup: AgendaGroupSchema });
export const AgendaGroupListResponse = Type.Object({ agendaGroups: Type.Array(AgendaGroupSchema) });
