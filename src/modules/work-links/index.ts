/**
 * The work-links module's public entry: what other modules, the API catalog, the doors and the
 * CLI use. Files inside the module import each other directly, never this file.
 */
export { WorkLinkBody, workLinkFieldCodes, WorkLinkResponse, WorkLinkSchema } from './work-links.schemas.js';
export {
  addWorkLink,
  listWorkLinks,
  removeWorkLink,
  removeWorkLinksOfRecords,
  removeWorkLinksOwnedBy,
  replaceWorkLinks,
  resolveWorkTarget,
  resolveWorkTargets,
  type WorkLinkView,
  type WorkTarget,
  type WorkTargetInput,
  type WorkTargetType,
} from './work-links.service.js';

/** Each schemas file whole: the OpenAPI document names its exported schemas (api/openapi/component-names.ts). */
export * as workLinkSchemas from './work-links.schemas.js';
