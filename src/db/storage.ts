import { statfsSync, type StatsFs } from 'node:fs';
import { statfs } from 'node:fs/promises';
import { dirname } from 'node:path';
import { sql } from 'kysely';
import type { Database } from './database.js';

/** Below this much free space next to an SQLite file, a commit that grows it may fail. */
export const MIN_FREE_BYTES = 1_048_576;

/** Space this process may use: root may also use the blocks reserved for it. */
const freeBytes = (disk: StatsFs) => (process.getuid?.() === 0 ? disk.bfree : disk.bavail) * disk.bsize;

/** SQLite files open in this process, so an I/O error can be checked against their disk. */
const openFiles = new Set<string>();

/** Records an open SQLite file; the returned function forgets it when the database closes. */
export function trackSqliteFile(file: string): () => void {
  openFiles.add(file);
  return () => openFiles.delete(file);
}

function noRoomNextTo(file: string): boolean {
  try {
    return freeBytes(statfsSync(dirname(file))) < MIN_FREE_BYTES;
  } catch {
    return false;
  }
}

/**
 * SQLite reports most writes on a full file system as SQLITE_FULL, but some as I/O errors
 * (growing or creating its shared-memory index answers SQLITE_IOERR_SHMSIZE). Such an
 * error while the disk of the file has no room left is a full disk, not an outage.
 */
export function ioErrorOnFullDisk(code: string, files: Iterable<string> = openFiles): boolean {
  if (!code.startsWith('SQLITE_IOERR') && !code.startsWith('SQLITE_CANTOPEN')) return false;
  for (const file of files) if (noRoomNextTo(file)) return true;
  return false;
}

async function pragma(database: Database, name: string): Promise<number> {
  const { rows } = await sql<Record<string, number>>`${sql.raw(`pragma ${name}`)}`.execute(database.db);
  return Number(rows[0]?.[name] ?? 0);
}

/**
 * Whether an SQLite store has no room left to grow: every page up to max_page_count used
 * with none free, or less than MIN_FREE_BYTES free on the file's file system. A commit can
 * still succeed then while it reuses free pages or WAL space, so a tiny probe write alone
 * would report ready on a full disk. PostgreSQL reports its own disk in the probe write's
 * error (53100).
 */
export async function sqliteStorageExhausted(database: Database): Promise<boolean> {
  if (database.dialect !== 'sqlite') return false;
  const [pages, maxPages, freePages] = [
    await pragma(database, 'page_count'),
    await pragma(database, 'max_page_count'),
    await pragma(database, 'freelist_count'),
  ];
  if (pages >= maxPages && freePages === 0) return true;
  if (!database.file) return false;
  return freeBytes(await statfs(dirname(database.file))) < MIN_FREE_BYTES;
}
