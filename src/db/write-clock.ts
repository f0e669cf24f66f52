import { sql, type Kysely } from 'kysely';
import { singleQuery } from './compiled-query.js';
import { KEYED_PLANS_ONLY } from './postgres/plan-settings.js';
import type { DB } from './schema.js';

/**
 * The instant a write transaction stamps on what it changes (`updated_at`, events), taken
 * once the transaction holds the workspace's write order, so that within a workspace a
 * later commit always carries a later instant. Clients that sync by `updatedAt`, and the
 * change feed by position, depend on it: a change can never commit behind a position a
 * client has already read past.
 *
 * SQLite runs one write transaction at a time (BEGIN IMMEDIATE), so reading the clock
 * inside it is enough; it only has to move forward by at least 1 ms each time
 * (MonotonicClock). PostgreSQL runs them side by side: the workspace row holds the clock,
 * and moving it forward takes the row's lock until commit, which puts the workspace's
 * writes in one line from that statement on: a write takes it as its transaction begins,
 * so what it reads is read in that line too.
 */

/** SQLite: the last instant given out, so that each write's is at least 1 ms past the one before. */
export class MonotonicClock {
  #lastMs = 0;

  next(): number {
    this.#lastMs = Math.max(Date.now(), this.#lastMs + 1);
    return this.#lastMs;
  }
}

/**
 * PostgreSQL: the clock's step, moving it to the wall clock or at least 1 ms on. The same
 * statement leaves the rest of the transaction to keyed plans only (plan-settings.ts): every
 * statement of a write finds its rows by key, and setting it here spares each write
 * transaction a round trip of its own for it.
 */
const clockStep = singleQuery((db, slots: { workspaceId: string; wallMs: number }) =>
  db
    .updateTable('workspaces')
    .set({ write_clock_ms: sql`greatest(write_clock_ms + 1, ${slots.wallMs})` })
    .where('id', '=', slots.workspaceId)
    .returning(['write_clock_ms', sql.raw<string>(KEYED_PLANS_ONLY).as('keyed_plans_only')]),
);

/**
 * PostgreSQL: takes a write's instant in `workspaceId` through its transaction `trx`, and with
 * it the workspace's write order and the write's plan setting (clockStep).
 */
export async function workspaceClockInstant(trx: Kysely<DB>, workspaceId: string): Promise<number> {
  const wallMs = Date.now();
  const row = await clockStep.first({ db: trx, dialect: 'postgres' }, { workspaceId, wallMs });
  if (!row) throw new Error(`workspace ${workspaceId} has no write clock`);
  return Number(row.write_clock_ms);
}

/** PostgreSQL: the clock set to `ms`, the last instant a group's transaction gave out. */
const clockSet = singleQuery((db, slots: { workspaceId: string; ms: number }) =>
  db.updateTable('workspaces').set({ write_clock_ms: slots.ms }).where('id', '=', slots.workspaceId),
);

/**
 * PostgreSQL: leaves `workspaceId`'s clock at `ms` through `trx`, which holds the clock row's
 * lock (it took an instant first), so no one else has moved the clock since.
 */
export async function setWorkspaceClock(trx: Kysely<DB>, workspaceId: string, ms: number): Promise<void> {
  await clockSet.rows({ db: trx, dialect: 'postgres' }, { workspaceId, ms });
}
