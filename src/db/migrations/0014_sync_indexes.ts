import type { Kysely } from 'kysely';

/**
 * Indexes for `sort=updatedAt` and `updatedSince` (db/list-page.ts): a sync page of each
 * list is an index range scan on `(updated_at, id)` within the workspace, never a sort of
 * the workspace's rows. Issues are synced per project too, the other lists per workspace.
 * `issues_source_idx` finds the issues made from a record that is being deleted, whose
 * `source` then reads null (their `updated_at` moves with it).
 */
const INDEXES: ReadonlyArray<{ name: string; table: string; columns: string[] }> = [
  { name: 'issues_ws_updated_idx', table: 'issues', columns: ['workspace_id', 'updated_at', 'id'] },
  { name: 'issues_project_updated_idx', table: 'issues', columns: ['project_id', 'updated_at', 'id'] },
  { name: 'issues_source_idx', table: 'issues', columns: ['source_id'] },
  { name: 'projects_ws_updated_idx', table: 'projects', columns: ['workspace_id', 'updated_at', 'id'] },
  { name: 'meetings_ws_updated_idx', table: 'meetings', columns: ['workspace_id', 'updated_at', 'id'] },
  {
    name: 'discussion_topics_ws_updated_idx',
    table: 'discussion_topics',
    columns: ['workspace_id', 'updated_at', 'id'],
  },
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const index of INDEXES) await db.schema.createIndex(index.name).on(index.table).columns(index.columns).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const index of INDEXES) await db.schema.dropIndex(index.name).ifExists().execute();
}
