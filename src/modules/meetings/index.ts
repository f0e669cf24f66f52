/**
 * The meetings module's public entry: what other modules, the API catalog, the doors and the
 * CLI use. Files inside the module import each other directly, never this file.
 */
export { AgendaItemSchema } from './agenda-items.schemas.js';
export { convergeAgendaStatuses } from './agenda-statuses.service.js';
export { countAgendaTagUsage } from './agenda-tag-usage.service.js';
export { externalOwnersOfProjectMeetings } from './external-owners.service.js';
export { meetingsOperations } from './meetings.operations.js';
export { MeetingSchema } from './meetings.schemas.js';
export { convergePresets, EMAIL_PATTERN, type PresetSpec } from './presets.service.js';

/** Each schemas file whole: the OpenAPI document names its exported schemas (api/openapi/component-names.ts). */
export * as agendaGroupSchemas from './agenda-groups.schemas.js';
export * as agendaItemSchemas from './agenda-items.schemas.js';
export * as conversionSchemas from './conversion.schemas.js';
export * as meetingSchemas from './meetings.schemas.js';
export * as ownerSchemas from './owners.schemas.js';
export * as settingsSchemas from './settings.schemas.js';
