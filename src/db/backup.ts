import type { Database as SqliteConnection } from 'better-sqlite3';
import { existsSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { createOwnerOnly } from './file-mode.js';

/** What a finished copy is: its size on disk and the newest migration it holds. */
export interface SqliteBackup {
  bytes: number;
  latestMigration: string | undefined;
}

/** Why a copy was not made, in words the operator can act on. */
export class BackupError extends Error {
  override name = 'BackupError';
}

/**
 * SQLite restarts an online backup from the first page when another connection (here: the
 * server) commits between two steps, so under a steady write load small steps may never
 * finish. Asked for the size of the first step, the copy takes the whole file in one: a
 * single read transaction, one snapshot, which under WAL does not hold up the server's
 * writes (the WAL only grows until it ends).
 */
const WHOLE_FILE_IN_ONE_STEP = 0x7fffffff;

/**
 * Copies the live SQLite file `source` to `target` with SQLite's online backup API, which
 * yields one consistent snapshot however the server writes meanwhile, checks the copy with
 * `PRAGMA integrity_check`, and only then gives it its final name: a failed or interrupted
 * copy never stands under `target`.
 */
export async function backupSqliteFile(source: string, target: string): Promise<SqliteBackup> {
  if (!existsSync(source)) throw new BackupError(`there is no SQLite database at ${source}`);
  if (!existsSync(dirname(target))) throw new BackupError(`the directory ${dirname(target)} does not exist`);
  const { default: Sqlite } = await import('better-sqlite3');
  const partial = join(dirname(target), `.${basename(target)}.partial-${process.pid}`);
  // The copy holds everything the store does (webhook secrets among it): created readable by
  // its owner only before SQLite writes to it, and renamed with that mode. A copy left by an
  // earlier run of this pid goes first, so the file is always made anew.
  removeCopy(partial);
  try {
    createOwnerOnly(partial);
    // Only reads, but not opened read-only: a read-only connection cannot remove the WAL files
    // it creates when the server is stopped, and would leave them beside the database.
    const live = new Sqlite(source, { fileMustExist: true });
    try {
      // A checkpoint of the server's can hold the file for a moment: wait for it rather than fail.
      live.pragma('busy_timeout = 5000');
      await live.backup(partial, { progress: () => WHOLE_FILE_IN_ONE_STEP });
    } finally {
      live.close();
    }
    const latestMigration = verifyCopy(new Sqlite(partial, { fileMustExist: true }));
    renameSync(partial, target);
    return { bytes: statSync(target).size, latestMigration };
  } finally {
    removeCopy(partial);
  }
}

/** Answers the copy's newest migration once `integrity_check` says ok; closes the copy either way. */
function verifyCopy(copy: SqliteConnection): string | undefined {
  try {
    const rows = copy.pragma('integrity_check', { simple: false }) as Array<{ integrity_check: string }>;
    const verdict = rows.map((row) => row.integrity_check);
    if (verdict.length !== 1 || verdict[0] !== 'ok') {
      throw new BackupError(`the copy failed PRAGMA integrity_check: ${verdict.slice(0, 3).join('; ')}`);
    }
    const hasMigrations = copy
      .prepare("select 1 from sqlite_master where type = 'table' and name = 'kysely_migration'")
      .get();
    if (!hasMigrations) return undefined;
    const latest = copy.prepare('select max(name) as name from kysely_migration').get() as { name: string | null };
    return latest.name ?? undefined;
  } finally {
    copy.close();
  }
}

/** A copy left by a failure, with the WAL files SQLite may have made beside it; none after a rename. */
function removeCopy(partial: string): void {
  for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(`${partial}${suffix}`, { force: true });
}
