import { statfs } from 'node:fs/promises';
import { dirname } from 'node:path';
import { sql } from 'kysely';
import type { Database } from './connect.js';

/** Below this much free space next to an SQLite file, a commit that grows it may fail. */
export const MIN_FREE_BYTES = 1_048_576;

async function pragma(database: Database, name: string): Promise<number> {
  const { rows } = await sql<Record<string, number>>`${sql.raw(`pragma ${name}`)}`.execute(database.db);
  return Number(rows[0]?.[name] ?? 0);
}

/**
 * Whether an SQLite store has no room left to grow: every page up to max_page_count used
 * with none free, or less than MIN_FREE_BYTES free on the file's file system (as this
 * user: root may also use the reserved blocks). A commit can still succeed then while it
 * reuses free pages or WAL space, so a tiny probe write alone would report ready on a
 * full disk. PostgreSQL reports its own disk in the probe write's error (53100).
 */
export async function sqliteStorageExhausted(database: Database): Promise<boolean> {
  if (database.dialect !== 'sqlite') return false;
  const [pages, maxPages, freePages] = [await pragma(database, 'page_count'), await pragma(database, 'max_page_count'), await pragma(database, 'freelist_count')];
  if (pages >= maxPages && freePages === 0) return true;
  if (!database.file) return false;
  const disk = await statfs(dirname(database.file));
  const freeBlocks = process.getuid?.() === 0 ? disk.bfree : disk.bavail;
  return freeBlocks * disk.bsize < MIN_FREE_BYTES;
}
