/**
 * The projects module's public entry: what other modules, the API catalog, the doors and the
 * CLI use. Files inside the module import each other directly, never this file.
 */
export { type ProjectScopeQuery, resolveProjectScope, scopeFilter } from './project-scope.js';
export { projectOperations } from './projects.operations.js';
export { ProjectSchema, ProjectScopeQueryFields } from './projects.schemas.js';
export {
  createProject,
  hiddenSourceProject,
  type ProjectRef,
  type ProjectWithDefaultStatus,
  type ProjectWithTeam,
  requireVisibleProject,
  resolveProjectRef,
  resolveProjectRefs,
  workflowStatusIds,
} from './projects.service.js';

/** Each schemas file whole: the OpenAPI document names its exported schemas (api/openapi/component-names.ts). */
export * as projectSchemas from './projects.schemas.js';
