import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import pg from 'pg';
import { openDatabase } from '../../src/db/connect.js';
import type { Database } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import type { DB } from '../../src/db/schema.js';

/**
 * A fresh, migrated database for one test file: in-memory SQLite by default, or a new
 * PostgreSQL database on the server named by TEST_DATABASE_URL (dropped on close).
 */
const created = new WeakMap<Database, () => Promise<void>>();

/** SQLSTATEs of `create database` losing a race with another test file making the same one. */
const ALREADY_CREATED = new Set(['42P04', '23505']);

/**
 * A client connected to the database TEST_DATABASE_URL names, created first (from the
 * server's `postgres` database) when it does not exist yet, so the README's test command
 * runs against a server that has only its defaults.
 */
async function connectAdmin(serverUrl: string): Promise<pg.Client> {
  const admin = new pg.Client({ connectionString: serverUrl });
  try {
    await admin.connect();
    return admin;
  } catch (error) {
    await admin.end().catch(() => undefined);
    if ((error as { code?: unknown }).code !== '3D000') throw error;
  }
  const url = new URL(serverUrl);
  const name = decodeURIComponent(url.pathname.slice(1));
  url.pathname = '/postgres';
  const maintenance = new pg.Client({ connectionString: url.toString() });
  await maintenance.connect();
  try {
    await maintenance.query(`create database ${pg.escapeIdentifier(name)}`);
  } catch (error) {
    if (!ALREADY_CREATED.has(String((error as { code?: unknown }).code))) throw error;
  } finally {
    await maintenance.end();
  }
  const created = new pg.Client({ connectionString: serverUrl });
  await created.connect();
  return created;
}

/** A new, empty PostgreSQL database on the server of `serverUrl`: its URL and how to drop it. */
async function createPostgresDatabase(serverUrl: string, prefix: string): Promise<EmptyStore> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const admin = await connectAdmin(serverUrl);
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: serverUrl });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    },
  };
}

export interface EmptyStore {
  /** DATABASE_URL of the store. */
  url: string;
  /** Removes a PostgreSQL database; nothing for SQLite (the caller removes its directory). */
  drop: () => Promise<void>;
}

/**
 * An empty store for a real server process: a SQLite file in `dir`, or with
 * TEST_DATABASE_URL a new PostgreSQL database named after `prefix`.
 */
export async function emptyStore(dir: string, prefix: string): Promise<EmptyStore> {
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (serverUrl) return createPostgresDatabase(serverUrl, prefix);
  return { url: `sqlite:${join(dir, 'wsx.sqlite')}`, drop: async () => {} };
}

export async function openTestDatabase(): Promise<Database> {
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) {
    const database = await openDatabase('sqlite::memory:');
    await migrateToLatest(database);
    return database;
  }
  const store = await createPostgresDatabase(serverUrl, 'wsx_test');
  const database = await openDatabase(store.url);
  await migrateToLatest(database);
  created.set(database, store.drop);
  return database;
}

export async function closeTestDatabase(database: Database): Promise<void> {
  await database.close();
  await created.get(database)?.();
}

/** How many rows `table` holds. */
export async function countRows(db: Kysely<DB>, table: keyof DB): Promise<number> {
  const row = await db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
