import type { DB } from '../schema.js';

/**
 * What a workspace export holds, in the order it is written and imported: parents before
 * the rows that name them. Every table of a workspace carries `workspace_id` itself, so a
 * row belongs to the export when that column (or, for `workspaces`, its id) is the
 * workspace's; `onlyNull` narrows a table to the rows whose column is null. What is left
 * out, and why, is `LEFT_OUT` below.
 */
export interface ExportedTable {
  table: keyof DB;
  /** The primary key: rows are written in its order and paged by it. */
  key: readonly string[];
  /** The column that names the workspace. */
  scope: 'id' | 'workspace_id';
  onlyNull?: string;
  /**
   * Columns the store derives from other rows (by trigger): left out of the file, and of the
   * rows an import writes, so the store derives them again from the rows it imports.
   */
  derived?: readonly string[];
}

/** The row without the table's derived columns. */
export function withoutDerived(spec: ExportedTable, row: Record<string, unknown>): Record<string, unknown> {
  if (!spec.derived) return row;
  const kept = { ...row };
  for (const column of spec.derived) delete kept[column];
  return kept;
}

export const EXPORTED_TABLES: readonly ExportedTable[] = [
  { table: 'workspaces', key: ['id'], scope: 'id' },
  { table: 'users', key: ['id'], scope: 'workspace_id' },
  { table: 'teams', key: ['id'], scope: 'workspace_id' },
  { table: 'team_members', key: ['team_id', 'user_id'], scope: 'workspace_id' },
  { table: 'statuses', key: ['id'], scope: 'workspace_id' },
  { table: 'status_transitions', key: ['from_status_id', 'to_status_id'], scope: 'workspace_id' },
  { table: 'projects', key: ['id'], scope: 'workspace_id' },
  { table: 'project_statuses', key: ['project_id', 'status_id'], scope: 'workspace_id' },
  { table: 'api_tokens', key: ['id'], scope: 'workspace_id' },
  { table: 'token_project_grants', key: ['token_id', 'project_id'], scope: 'workspace_id' },
  // Those of the workspace file; those issued under an OAuth connector stay (see LEFT_OUT).
  { table: 'oauth_tokens', key: ['id'], scope: 'workspace_id', onlyNull: 'grant_id' },
  { table: 'tags', key: ['id'], scope: 'workspace_id' },
  { table: 'issue_containers', key: ['id'], scope: 'workspace_id' },
  { table: 'milestones', key: ['id'], scope: 'workspace_id' },
  { table: 'issues', key: ['id'], scope: 'workspace_id', derived: ['link_count'] },
  { table: 'issue_links', key: ['id'], scope: 'workspace_id' },
  { table: 'issue_evolutions', key: ['id'], scope: 'workspace_id' },
  { table: 'milestone_activity', key: ['id'], scope: 'workspace_id' },
  { table: 'subtasks', key: ['id'], scope: 'workspace_id' },
  { table: 'subtask_links', key: ['id'], scope: 'workspace_id' },
  { table: 'meetings', key: ['id'], scope: 'workspace_id' },
  { table: 'agenda_statuses', key: ['id'], scope: 'workspace_id' },
  { table: 'external_owner_presets', key: ['id'], scope: 'workspace_id' },
  { table: 'agenda_groups', key: ['id'], scope: 'workspace_id' },
  { table: 'agenda_items', key: ['id'], scope: 'workspace_id' },
  { table: 'agenda_owners', key: ['id'], scope: 'workspace_id' },
  { table: 'discussion_groups', key: ['id'], scope: 'workspace_id' },
  { table: 'discussion_group_members', key: ['group_id', 'member_id'], scope: 'workspace_id' },
  { table: 'discussion_topics', key: ['id'], scope: 'workspace_id' },
  { table: 'work_links', key: ['id'], scope: 'workspace_id' },
  { table: 'comments', key: ['id'], scope: 'workspace_id' },
  { table: 'attachments', key: ['id'], scope: 'workspace_id' },
  { table: 'tag_usages', key: ['entity_type', 'entity_id', 'name_lower'], scope: 'workspace_id' },
  { table: 'webhooks', key: ['id'], scope: 'workspace_id' },
  { table: 'outbox_events', key: ['id'], scope: 'workspace_id' },
  { table: 'outbox_pruned', key: ['project_key'], scope: 'workspace_id' },
  { table: 'webhook_jobs', key: ['id'], scope: 'workspace_id' },
  { table: 'webhook_deliveries', key: ['id'], scope: 'workspace_id' },
];

/**
 * Tables (or parts of them) an export leaves out on purpose; a test checks that every table
 * with a `workspace_id` is here or in EXPORTED_TABLES, so a new table cannot be forgotten.
 */
export const LEFT_OUT: Readonly<Partial<Record<keyof DB, string>>> = {
  installation_secrets: 'installation-wide: each installation signs with its own',
  server_instances: 'the serving processes of this installation (like every table without a workspace)',
  oauth_clients: 'installation-wide registrations',
  oauth_authorization_requests: 'pending for ten minutes at most',
  oauth_codes: 'single use, sixty seconds',
  oauth_grants: 'an OAuth connector names a client registered with this installation only: people approve it again',
  oauth_refresh_tokens: 'issued under an OAuth connector (see oauth_grants)',
  idempotency_keys: 'replays of recent requests, kept for a day',
  login_links: 'single use, ten minutes',
  browser_sessions: 'people sign in again on the new server',
};

/** Columns PostgreSQL answers as text (bigint): written as numbers so both stores agree. */
export const BIGINT_COLUMNS: ReadonlySet<string> = new Set(['seq', 'write_clock_ms']);
