import { CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../src/db/database.js';
import { closeTestDatabase, openTestDatabase } from './support/database.js';

/**
 * Migration 0022: the indexes on an issue's container, milestone and source hold only the
 * issues that have one, and the lookups by those references still use them on both stores.
 */
let database: Database;

beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(async () => {
  await closeTestDatabase(database);
});

const LOOKUPS = [
  { index: 'issues_container_idx', where: 'container_id = $1' },
  { index: 'issues_container_idx', where: 'container_id in ($1, $2)' },
  { index: 'issues_milestone_idx', where: 'milestone_id = $1' },
  { index: 'issues_source_idx', where: 'source_id = $1' },
];

async function planOf(where: string): Promise<string> {
  const text = `select id from issues where ${where}`;
  const parameters = ['a', 'b'].slice(0, where.split('$').length - 1);
  if (database.dialect === 'sqlite') {
    const rows = await database.db.executeQuery<{ detail: string }>(
      CompiledQuery.raw(`explain query plan ${text.replace(/\$\d/g, '?')}`, parameters),
    );
    return rows.rows.map((row) => row.detail).join('\n');
  }
  // An empty table is read whole whatever its indexes; this asks whether the index can serve.
  return database.db.connection().execute(async (connection) => {
    await sql`set enable_seqscan = off`.execute(connection);
    try {
      const rows = await connection.executeQuery<{ 'QUERY PLAN': string }>(
        CompiledQuery.raw(`explain ${text}`, parameters),
      );
      return rows.rows.map((row) => row['QUERY PLAN']).join('\n');
    } finally {
      await sql`reset enable_seqscan`.execute(connection);
    }
  });
}

describe('the indexes of an issue’s optional references', () => {
  it('hold only issues that have the reference', async () => {
    const definitions =
      database.dialect === 'sqlite'
        ? await sql<{ name: string; definition: string }>`select name, sql as definition from sqlite_master
            where type = 'index' and name in ('issues_container_idx', 'issues_milestone_idx', 'issues_source_idx')`.execute(
            database.db,
          )
        : await sql<{
            name: string;
            definition: string;
          }>`select indexname as name, indexdef as definition from pg_indexes
            where indexname in ('issues_container_idx', 'issues_milestone_idx', 'issues_source_idx')`.execute(
            database.db,
          );
    expect(definitions.rows).toHaveLength(3);
    for (const { name, definition } of definitions.rows) {
      const column = name.replace(/^issues_(\w+)_idx$/, '$1_id');
      expect(definition.toLowerCase(), name).toMatch(new RegExp(`where \\(?"?${column}"? is not null\\)?$`));
    }
  });

  it.each(LOOKUPS)('serve a lookup where $where', async ({ index, where }) => {
    expect(await planOf(where)).toContain(index);
  });
});
