import { sql, type Kysely } from 'kysely';
import type { DialectName } from './database.js';
import type { DB } from './schema.js';

/**
 * The instant a write transaction stamps on what it changes (`updated_at`, events), taken
 * once the transaction holds the workspace's write order, so that within a workspace a
 * later commit always carries a later instant. Clients that sync by `updatedAt` depend on
 * it: a change can never commit behind a position a client has already read past.
 *
 * SQLite runs one write transaction at a time (BEGIN IMMEDIATE), so reading the clock
 * inside it is enough; it only has to move forward by at least 1 ms each time. PostgreSQL
 * runs them side by side: the workspace row holds the clock, and moving it forward takes
 * the row's lock until commit, which puts the workspace's writes in one line.
 */
let lastSqliteMs = 0;

export async function takeWriteInstant(db: Kysely<DB>, dialect: DialectName, workspaceId: string): Promise<number> {
  const wallMs = Date.now();
  if (dialect === 'sqlite') {
    lastSqliteMs = Math.max(wallMs, lastSqliteMs + 1);
    return lastSqliteMs;
  }
  const row = await db
    .updateTable('workspaces')
    .set({ write_clock_ms: sql`greatest(write_clock_ms + 1, ${wallMs})` })
    .where('id', '=', workspaceId)
    .returning('write_clock_ms')
    .executeTakeFirstOrThrow();
  return Number(row.write_clock_ms);
}
