/**
 * The idempotency module's public entry: what other modules, the API catalog, the doors and the
 * CLI use. Files inside the module import each other directly, never this file.
 */
export { ClaimHolder } from './holder.js';
export { assertValidKey, purgeExpiredKeys } from './idempotency.service.js';
export { canonicalPath, runKeyedWrite } from './keyed-write.js';
