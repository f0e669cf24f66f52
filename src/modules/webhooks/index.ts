/**
 * The webhooks module's public entry: what other modules, the API catalog, the doors and the
 * CLI use. Files inside the module import each other directly, never this file.
 */
export { disableIfFailingTooLong } from './auto-disable.js';
export { checkEventFilter } from './event-filter.js';
export { webhooksOperations } from './webhooks.operations.js';
export { WebhookSchema } from './webhooks.schemas.js';
export { convergeFileWebhooks, type FileWebhookSpec, WEBHOOK_LIMIT } from './webhooks.service.js';

/** Each schemas file whole: the OpenAPI document names its exported schemas (api/openapi/component-names.ts). */
export * as webhookSchemas from './webhooks.schemas.js';
