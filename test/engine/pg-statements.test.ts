import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/connect.js';
import type { Database } from '../../src/db/database.js';
import { namedStatementClient } from '../../src/db/postgres/named-statements.js';
import { StatementWatch } from '../../src/db/statements.js';
import { emptyStore, type EmptyStore } from '../support/database.js';

/** PostgreSQL parses and plans a statement text once per connection: each runs as a named prepared statement. */
describe.skipIf(!process.env.TEST_DATABASE_URL)('named statements on PostgreSQL', () => {
  let store: EmptyStore;
  let database: Database;

  beforeAll(async () => {
    store = await emptyStore('', 'wsx_prepared');
    // One connection, so the session that prepared the statements is the one asked about them.
    database = await openDatabase(store.url, { pgPoolSize: 1 });
  });
  afterAll(async () => {
    await database.close();
    await store.drop();
  });

  const prepared = async () =>
    (
      await sql<{ name: string; statement: string }>`select name, statement from pg_prepared_statements`.execute(
        database.db,
      )
    ).rows.filter((row) => row.statement.includes('pg_database'));

  it('prepares a query once under a stable name and reuses it with other values', async () => {
    const lookup = (name: string) =>
      database.db
        .selectFrom(sql<{ datname: string }>`pg_database`.as('d'))
        .select('datname')
        .where('datname', '=', name)
        .execute();
    await lookup('postgres');
    const first = await prepared();
    expect(first).toHaveLength(1);
    expect(first[0].name).toMatch(/^wsx_[A-Za-z0-9_-]{20}$/);
    await lookup('template1');
    expect(await prepared()).toEqual(first);
  });

  it('answers rows as plain objects in column order, with types parsed and a repeated name keeping its last value', async () => {
    const { rows } = await sql<Record<string, unknown>>`
      select 1::int as n, 'a' as v, null::text as "null", true as flag, 'b' as v, 2::int as "__proto__"
      from generate_series(1, 3)`.execute(database.db);
    expect(rows).toHaveLength(3);
    for (const row of rows) {
      expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
      expect(Object.keys(row)).toEqual(['n', 'v', 'null', 'flag', '__proto__']);
      expect(row).toMatchObject({ n: 1, v: 'b', null: null, flag: true });
      expect(Object.getOwnPropertyDescriptor(row, '__proto__')?.value).toBe(2);
    }
    const none = await sql`select 1 as n where false`.execute(database.db);
    expect(none.rows).toEqual([]);
  });

  it('reads later runs of a statement with the same column types, and survives a failing run', async () => {
    const run = async (n: number) =>
      (
        await sql<
          Record<string, unknown>
        >`select ${n}::int as n, 'x' || ${n}::text as label, ${n}::int > 1 as big`.execute(database.db)
      ).rows;
    expect(await run(1)).toEqual([{ n: 1, label: 'x1', big: false }]);
    expect(await run(2)).toEqual([{ n: 2, label: 'x2', big: true }]);
    // A failing run leaves the connection usable for the next one.
    await expect(sql`select 1 / ${0}::int as n`.execute(database.db)).rejects.toThrow(/division by zero/);
    await expect(sql`select 1 / ${0}::int as n`.execute(database.db)).rejects.toThrow(/division by zero/);
    expect(await run(3)).toEqual([{ n: 3, label: 'x3', big: true }]);
  });

  it("answers pg's callback form (pool.query) and gives its connection back", async () => {
    const pool = database.pool as unknown as pg.Pool;
    for (let run = 0; run < 3; run++)
      expect((await pool.query('select $1::int as n', [run])).rows).toEqual([{ n: run }]);
    expect(pool.idleCount).toBe(pool.totalCount);
  });

  it("empties pg's own row arrays once the rows are copied, so no old result keeps them alive", async () => {
    // pg's Client, recording each result it answers before the named client copies its rows.
    const answered: pg.QueryArrayResult[] = [];
    class RecordingClient extends pg.Client {
      override query(...args: any[]): any {
        const answer = (super.query as (...passed: unknown[]) => unknown)(...args);
        if (answer instanceof Promise) void answer.then((result: pg.QueryArrayResult) => answered.push(result));
        return answer;
      }
    }
    const Client = namedStatementClient({ ...pg, Client: RecordingClient }, new StatementWatch());
    const client = new Client({ connectionString: store.url });
    await client.connect();
    try {
      const { rows } = await client.query('select n, $1::text as label from generate_series(1, 3) as n', ['x']);
      expect(rows).toEqual([
        { n: 1, label: 'x' },
        { n: 2, label: 'x' },
        { n: 3, label: 'x' },
      ]);
      expect(answered).toHaveLength(1);
      expect(answered[0].rows).toEqual([]);
    } finally {
      await client.end();
    }
  });
});
