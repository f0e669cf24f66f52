import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openDatabase } from '../../src/db/connect.js';
import type { Database } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';

/** A new, empty, migrated store for one measurement: an SQLite file, or a PostgreSQL database. */

export type Store = 'sqlite' | 'postgres';

const PG_SERVER = process.env.PG_SERVER_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const PG_DATABASE = 'wsx_webhook_bench';

async function admin(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: PG_SERVER });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

export async function freshStore(store: Store): Promise<Database> {
  let url: string;
  if (store === 'postgres') {
    await admin(`drop database if exists ${PG_DATABASE} with (force)`);
    await admin(`create database ${PG_DATABASE}`);
    url = `${PG_SERVER.replace(/\/[^/]*$/, '')}/${PG_DATABASE}`;
  } else {
    const file = join(tmpdir(), 'wsx-webhook-bench.sqlite');
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
    url = `sqlite:${file}`;
  }
  // As the server opens its store: SQLite checkpoints off the connection.
  const database = await openDatabase(url, { backgroundCheckpoints: true });
  await migrateToLatest(database);
  return database;
}
