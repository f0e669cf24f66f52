import { LIMITS } from '../../core/limits.js';
import { Type } from '@sinclair/typebox';
import { NonBlank, Nullable, PathParam, Ref, serviceCheck, Text } from '../../operations/schema-helpers.js';
import { EMAIL_PATTERN } from './presets.service.js';

/**
 * An email address as validEmail checks it (presets.service.ts): trimmed, blank for none,
 * else of the shape EMAIL_PATTERN gives. The check is the service's; the document shows it.
 */
export const EmailText = (description?: string) =>
  serviceCheck(Text(description, LIMITS.email), {
    pattern: `^\\s*(?:${EMAIL_PATTERN.source.replace(/^\^|\$$/g, '')}\\s*)?$`,
  });

export const AgendaStatusSchema = Type.Object({
  statusId: Type.String(),
  name: Type.String(),
  system: Type.Boolean(),
  position: Type.Integer(),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});
export const PresetSchema = Type.Object({
  presetId: Type.String(),
  name: Type.String(),
  externalName: Nullable(Type.String()),
  externalEmail: Nullable(Type.String()),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});

export const SettingsResponse = Type.Object({
  settings: Type.Object({
    agendaStatuses: Type.Array(AgendaStatusSchema),
    externalOwnerPresets: Type.Array(PresetSchema),
  }),
});

export const AgendaStatusBody = Type.Object({
  name: Type.Optional(
    NonBlank(
      Text('Unique case-insensitively (NAME_REQUIRED when empty); at most 100 characters.', LIMITS.agendaStatusName),
    ),
  ),
});
export const AgendaStatusOrderBody = Type.Object({
  orderedStatusIds: Type.Optional(
    Type.Array(Ref(), {
      maxItems: LIMITS.ordered,
      description:
        'Every agenda status id of the workspace (system ones too), once each (a workspace has at most 1,000).',
    }),
  ),
});
export const AgendaStatusResponse = Type.Object({ agendaStatus: AgendaStatusSchema });
export const AgendaStatusListResponse = Type.Object({ agendaStatuses: Type.Array(AgendaStatusSchema) });
export const StatusIdParams = Type.Object({ statusId: PathParam() });

export const PresetBody = Type.Object({
  name: Type.Optional(NonBlank(Text('Required on create (NAME_REQUIRED).'))),
  externalName: Type.Optional(Nullable(Text())),
  externalEmail: Type.Optional(Nullable(EmailText())),
});
export const PresetResponse = Type.Object({ externalOwnerPreset: PresetSchema });
export const PresetIdParams = Type.Object({ presetId: PathParam() });

export const agendaStatusFieldCodes = { name: 'NAME_REQUIRED' } as const;
export const agendaStatusOrderFieldCodes = { orderedStatusIds: 'INVALID_AGENDA_STATUS_ORDER' } as const;
