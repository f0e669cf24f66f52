/**
 * The tags module's public entry: what other modules, the API catalog, the doors and the
 * CLI use. Files inside the module import each other directly, never this file.
 */
export {
  addTagUsages,
  listTagUsage,
  normaliseTags,
  removeTagUsages,
  replaceTagUsages,
  sameTags,
  type TagUsageCount,
} from './tags.service.js';
