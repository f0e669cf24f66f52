/**
 * The events module's public entry: what other modules, the API catalog, the doors and the
 * CLI use. Files inside the module import each other directly, never this file.
 */
export { eventSchemaName, WEBHOOK_EVENT_SCHEMAS } from './envelopes.schemas.js';
export { eventsOperations } from './events.operations.js';

/** Each schemas file whole: the OpenAPI document names its exported schemas (api/openapi/component-names.ts). */
export * as envelopeSchemas from './envelopes.schemas.js';
export * as eventSchemas from './events.schemas.js';
