import { sql, type Kysely, type QueryCreator } from 'kysely';
import type { WriteClockTaker } from '../core/context.js';
import { singleQuery } from './compiled-query.js';
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

/** PostgreSQL: an instant in ms as text, exactly as nowIso (Date.toISOString) writes it. */
const isoOfMs = (ms: string) =>
  sql<string>`to_char((timestamptz 'epoch' + ${sql.ref(ms)} * interval '1 millisecond') at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * PostgreSQL: the clock's step, answering the instant in ms and as text. A write that stamps
 * one row can take it as a data-modifying WITH of its own statement (issues.repository.ts),
 * taking the write order and writing in one round trip.
 */
export const writeClockStep = (db: QueryCreator<DB>, workspaceId: string, wallMs: number) =>
  db
    .updateTable('workspaces')
    .set({ write_clock_ms: sql`greatest(write_clock_ms + 1, ${wallMs})` })
    .where('id', '=', workspaceId)
    .returning(['write_clock_ms', isoOfMs('write_clock_ms').as('now')]);

const clockStep = singleQuery((db, slots: { workspaceId: string; wallMs: number }) =>
  writeClockStep(db, slots.workspaceId, slots.wallMs),
);

/**
 * Takes the instant of a write in `workspaceId`, through the write's transaction `db`: by
 * `takenBy` when the write takes the step in its own statement (PostgreSQL only: SQLite's
 * instant is this process's and needs no statement).
 */
export async function takeWriteInstant(
  db: Kysely<DB>,
  dialect: DialectName,
  workspaceId: string,
  takenBy?: WriteClockTaker,
): Promise<number> {
  const wallMs = Date.now();
  if (dialect === 'sqlite') {
    lastSqliteMs = Math.max(wallMs, lastSqliteMs + 1);
    return lastSqliteMs;
  }
  if (takenBy) return takenBy(wallMs, db);
  const row = await clockStep.first({ db, dialect }, { workspaceId, wallMs });
  if (!row) throw new Error(`workspace ${workspaceId} has no write clock`);
  return Number(row.write_clock_ms);
}
