import { sql, type RawBuilder } from 'kysely';

/** Tables keyed by their columns rather than an `id`: what names one of their rows. */
const KEY_COLUMNS: Record<string, readonly string[]> = {
  team_members: ['team_id', 'user_id'],
  status_transitions: ['from_status_id', 'to_status_id'],
  project_statuses: ['project_id', 'status_id'],
  token_project_grants: ['token_id', 'project_id'],
  tag_usages: ['entity_type', 'entity_id', 'name_lower'],
  idempotency_keys: ['credential_id', 'key'],
  discussion_group_members: ['group_id', 'member_id'],
  outbox_pruned: ['workspace_id', 'project_key'],
  oauth_codes: ['grant_id', 'created_at'],
};

/** What names a row of `table` (aliased `r`) in a report: its id, or its key columns joined by `/`. */
export function rowKey(table: string): RawBuilder<string> {
  const columns = KEY_COLUMNS[table];
  if (!columns) return sql<string>`r.id`;
  return sql<string>`${sql.join(
    columns.map((column) => sql`coalesce(r.${sql.id(column)}, '')`),
    sql` || '/' || `,
  )}`;
}
