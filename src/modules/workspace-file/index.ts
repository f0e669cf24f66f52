/**
 * The workspace-file module's public entry: what other modules, the API catalog, the doors and the
 * CLI use. Files inside the module import each other directly, never this file.
 */
export { type ApplyResult, applyWorkspaceFile, WorkspaceFileError } from './apply.js';
export { adminSignInArguments, bootstrapNotice, bootstrapWorkspace, type NoticeCommands } from './bootstrap.js';
export { TAG_SCOPES } from './sections/tags.js';
export { STATUS_CATEGORIES } from './sections/team-workflow.js';
export { WORKSPACE_SLUG_RE } from './workspace.js';
