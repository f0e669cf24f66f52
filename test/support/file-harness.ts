import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/connect.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { buildApp } from '../../src/server/app.js';
import { ClaimHolder } from '../../src/modules/idempotency/holder.js';
import { applyWorkspaceFile } from '../../src/modules/workspace-file/apply.js';
import { closeTestDatabase, openTestDatabase } from './database.js';
import { callerOf, type Harness } from './harness.js';

/**
 * Like startHarness, but SQLite is a file (in a fresh temporary directory) rather than
 * memory, for tests that need what only a file has: its disk, its WAL, a second
 * connection. With TEST_DATABASE_URL it is the same fresh PostgreSQL database.
 */
export async function startFileHarness(files: Array<object | string> = []): Promise<Harness & { dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'wsx-file-'));
  const database = process.env.TEST_DATABASE_URL
    ? await openTestDatabase()
    : await openDatabase(`sqlite:${join(dir, 'wsx.sqlite')}`);
  if (database.dialect === 'sqlite') await migrateToLatest(database);
  for (const file of files) await applyWorkspaceFile(database.db, file);
  const holder = new ClaimHolder(database.db);
  const app = await buildApp({ database, config: { ...loadConfig({}), rateLimitPerMinute: 0 }, holder });
  return {
    app,
    database,
    holder,
    dir,
    apply: (file) => applyWorkspaceFile(database.db, file),
    call: callerOf(app),
    close: async () => {
      await app.close();
      await closeTestDatabase(database);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
