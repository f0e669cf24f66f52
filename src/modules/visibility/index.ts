/**
 * The visibility module's public entry: what other modules, the API catalog, the doors and the
 * CLI use. Files inside the module import each other directly, never this file.
 */
export {
  type Before,
  type ConvertedIssue,
  convertedIssueExtras,
  type EventPresenter,
  EVERY_PROJECT,
  fieldReference,
  linkTargets,
  listReferences,
  ownProjectFields,
  presentWrite,
  snapshotForEvent,
} from './event-presentation.js';
export { existingVisibleIdsOf, visibilityOf, visibleGroupsSubquery, visibleIdsOf } from './visibility.service.js';
