import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { openDatabase } from '../../src/db/connect.js';
import type { Database } from '../../src/db/database.js';
import type { DB } from '../../src/db/schema.js';
import { emptyStore, type EmptyStore } from './database.js';

export interface ScratchTable {
  /** The store, open from the suite's start to its end. */
  readonly database: Database;
  /** The statements run on it that tell how writes were grouped, emptied before each test. */
  readonly log: string[];
  /** A second handle on the store whose pool has one connection. */
  openWithOneConnection: () => Promise<Database>;
  insert: (db: Kysely<DB>, value: string) => Promise<unknown>;
  /** The table's values, in order. */
  values: () => Promise<string[]>;
}

/**
 * A PostgreSQL store of the suite's own with one table, `t (v text primary key)`, for tests
 * of how writes share transactions: `log` records each insert by its value and every
 * BEGIN, COMMIT, ROLLBACK, SAVEPOINT and closing `select 1`. Call it inside `describe`.
 */
export function scratchTable(name: string): ScratchTable {
  let store: EmptyStore | undefined;
  let database: Database | undefined;
  const log: string[] = [];
  beforeAll(async () => {
    store = await emptyStore('', name);
    database = await openDatabase(store.url);
    await sql`create table t (v text primary key)`.execute(database.db);
    database.statements.observe((text, parameters) => {
      if (/^insert/i.test(text)) log.push(`insert ${String(parameters[0])}`);
      else if (/^(begin|commit|rollback|savepoint|select 1$)/i.test(text)) log.push(text.toLowerCase());
    });
  });
  afterAll(async () => {
    await database?.close();
    await store?.drop();
  });
  beforeEach(async () => {
    await sql`truncate t`.execute(opened().db);
    log.length = 0;
  });
  const opened = (): Database => {
    if (!database) throw new Error('the scratch store opens before the suite runs');
    return database;
  };
  return {
    get database() {
      return opened();
    },
    openWithOneConnection: async () => {
      if (!store) throw new Error('the scratch store opens before the suite runs');
      const poolSize = process.env.WSX_PG_POOL_SIZE;
      process.env.WSX_PG_POOL_SIZE = '1';
      try {
        return await openDatabase(store.url);
      } finally {
        if (poolSize === undefined) delete process.env.WSX_PG_POOL_SIZE;
        else process.env.WSX_PG_POOL_SIZE = poolSize;
      }
    },
    log,
    insert: (db, value) => sql`insert into t (v) values (${value})`.execute(db),
    values: async () => {
      const { rows } = await sql<{ v: string }>`select v from t order by v`.execute(opened().db);
      return rows.map((row) => row.v);
    },
  };
}

/** A gate a write waits at, so that others queue behind it. */
export function gate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}
