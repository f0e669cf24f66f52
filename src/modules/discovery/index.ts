/**
 * The discovery module's public entry: what other modules, the API catalog, the doors and the
 * CLI use. Files inside the module import each other directly, never this file.
 */
export { discoveryOperations } from './discovery.operations.js';

/** Each schemas file whole: the OpenAPI document names its exported schemas (api/openapi/component-names.ts). */
export * as discoverySchemas from './discovery.schemas.js';
