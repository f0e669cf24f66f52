import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { openDatabase } from '../../src/db/connect.js';
import type { Database } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import type { DB } from '../../src/db/schema.js';
import { emptyStore, type EmptyStore } from './database.js';

export interface ScratchTable {
  /** The store, open from the suite's start to its end. */
  readonly database: Database;
  /** The statements run on it that tell how writes were grouped, emptied before each test. */
  readonly log: string[];
  insert: (db: Kysely<DB>, value: string) => Promise<unknown>;
  /** The table's values, in order. */
  values: () => Promise<string[]>;
}

/**
 * A PostgreSQL store of the suite's own, migrated, with the workspace `ws` and one more table,
 * `t (v text primary key)`, for tests of how writes share transactions: `log` records each
 * insert by its value and every BEGIN, COMMIT, ROLLBACK and SAVEPOINT. Call it inside `describe`.
 */
export function scratchTable(name: string): ScratchTable {
  let store: EmptyStore | undefined;
  let database: Database | undefined;
  const log: string[] = [];
  beforeAll(async () => {
    store = await emptyStore('', name);
    database = await openDatabase(store.url);
    // A write takes its workspace's write clock, a column of the workspace's row.
    await migrateToLatest(database);
    await sql`insert into workspaces (id, slug, name, created_at, updated_at, write_clock_ms)
      values ('ws', 'ws', 'Scratch', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z', 0)`.execute(database.db);
    await sql`create table t (v text primary key)`.execute(database.db);
    database.statements.observe((text, parameters) => {
      if (/^insert/i.test(text)) log.push(`insert ${String(parameters[0])}`);
      else if (/^(begin|commit|rollback|savepoint)/i.test(text)) log.push(text.toLowerCase());
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
