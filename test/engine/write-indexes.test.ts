import { CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.js';
import { closeTestDatabase, openTestDatabase } from '../support/database.js';

/**
 * Indexes a create writes to: migration 0022 keeps only the issues that have a container,
 * milestone or source in those references' indexes, and the lookups by them still use them
 * on both stores; migration 0023 drops the outbox's time index, and the change feed still
 * reads the log by its position index.
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

const indexNames = async (table: string): Promise<string[]> =>
  (database.dialect === 'sqlite'
    ? await sql<{ name: string }>`select name from sqlite_master where type = 'index' and tbl_name = ${table}`.execute(
        database.db,
      )
    : await sql<{ name: string }>`select indexname as name from pg_indexes where tablename = ${table}`.execute(
        database.db,
      )
  ).rows.map((row) => row.name);

async function planOf(where: string, table = 'issues', select = 'id'): Promise<string> {
  const text = `select ${select} from ${table} where ${where}`;
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

describe('the outbox’s indexes', () => {
  it('have no index by time within a workspace, and the change feed reads by position', async () => {
    expect(await indexNames('outbox_events')).not.toContain('outbox_events_ws_idx');
    expect(await planOf('workspace_id = $1 and seq > 0 order by seq limit 51', 'outbox_events', 'seq')).toContain(
      'outbox_events_ws_seq_idx',
    );
  });
});
