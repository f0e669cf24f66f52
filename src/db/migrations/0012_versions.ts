import type { Kysely } from 'kysely';

/**
 * Optimistic concurrency and commit-ordered instants.
 *
 * Each resource a client can read alone and then change carries `version`, an integer that
 * every change of its row bumps; its ETag is made from it and `If-Match` compares it.
 *
 * `workspaces.write_clock_ms` is the instant of the workspace's latest write on PostgreSQL:
 * each write transaction moves it forward (at least 1 ms) and, holding its row lock until
 * commit, writes of one workspace take their instants in commit order, so a client that
 * syncs by `updatedAt` never finds a change committed behind its position.
 */
export const VERSIONED_TABLES = [
  'issues',
  'projects',
  'milestones',
  'subtasks',
  'meetings',
  'agenda_items',
  'discussion_topics',
  'webhooks',
] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of VERSIONED_TABLES) {
    await db.schema
      .alterTable(table)
      .addColumn('version', 'integer', (c) => c.notNull().defaultTo(1))
      .execute();
  }
  await db.schema
    .alterTable('workspaces')
    .addColumn('write_clock_ms', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('workspaces').dropColumn('write_clock_ms').execute();
  for (const table of VERSIONED_TABLES) await db.schema.alterTable(table).dropColumn('version').execute();
}
