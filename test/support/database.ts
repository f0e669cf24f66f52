import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openDatabase } from '../../src/db/connect.js';
import type { Database } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';

/**
 * A fresh, migrated database for one test file: in-memory SQLite by default, or a new
 * PostgreSQL database on the server named by TEST_DATABASE_URL (dropped on close).
 */
const created = new WeakMap<Database, { adminUrl: string; name: string }>();

export async function openTestDatabase(): Promise<Database> {
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) {
    const database = await openDatabase('sqlite::memory:');
    await migrateToLatest(database);
    return database;
  }
  const name = `wsx_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const database = await openDatabase(url.toString());
  await migrateToLatest(database);
  created.set(database, { adminUrl: serverUrl, name });
  return database;
}

export async function closeTestDatabase(database: Database): Promise<void> {
  await database.close();
  const pgDatabase = created.get(database);
  if (!pgDatabase) return;
  const admin = new pg.Client({ connectionString: pgDatabase.adminUrl });
  await admin.connect();
  await admin.query(`drop database if exists ${pgDatabase.name} with (force)`);
  await admin.end();
}
