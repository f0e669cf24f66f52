/**
 * The planning module's public entry: what other modules, the API catalog, the doors and the
 * CLI use. Files inside the module import each other directly, never this file.
 */
export { MilestoneSchema } from './milestones.schemas.js';
export { planningOperations } from './planning.operations.js';
export { SubtaskSchema } from './subtasks.schemas.js';

/** Each schemas file whole: the OpenAPI document names its exported schemas (api/openapi/component-names.ts). */
export * as containerSchemas from './containers.schemas.js';
export * as milestoneSchemas from './milestones.schemas.js';
export * as subtaskSchemas from './subtasks.schemas.js';
