import { sql, type Kysely } from 'kysely';

/**
 * The indexes on an issue's optional references (its container, milestone and source) hold
 * only the issues that have one. A lookup always names the record (`container_id = …`, `in
 * (…)`), which implies the column is not null, so both stores still use them; an issue
 * without the reference (most issues, and every plain create) no longer writes an entry
 * for it. On SQLite each such entry dirtied one more page for the create's commit to write
 * to the WAL, and creates ran faster without those entries in side-by-side runs.
 */
const INDEXES = [
  { name: 'issues_container_idx', column: 'container_id' },
  { name: 'issues_milestone_idx', column: 'milestone_id' },
  { name: 'issues_source_idx', column: 'source_id' },
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const { name, column } of INDEXES) {
    await db.schema.dropIndex(name).execute();
    await db.schema.createIndex(name).on('issues').column(column).where(sql.ref(column), 'is not', null).execute();
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const { name, column } of INDEXES) {
    await db.schema.dropIndex(name).execute();
    await db.schema.createIndex(name).on('issues').column(column).execute();
  }
}
