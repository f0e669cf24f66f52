import { sql } from 'kysely';
import type { Database } from '../db/database.js';

/** Counting stops here: past it, the number only says "very many" and a scrape stays cheap. */
export const BACKLOG_COUNT_LIMIT = 100_000;

export interface Backlog {
  /** Events not yet fanned out to subscriptions, and jobs not yet delivered (bounded counts). */
  count: { dispatch: number; delivery: number };
  /** Seconds since the oldest of each was created; 0 when there is none. */
  oldestAgeSeconds: { dispatch: number; delivery: number };
}

const ageSeconds = (createdAt: string | null | undefined, nowMs: number): number =>
  createdAt ? Math.max(0, (nowMs - Date.parse(createdAt)) / 1000) : 0;

/**
 * What waits in the outbox, read at scrape time. Every query walks a partial index that
 * holds only waiting rows (outbox_events_undispatched_idx, webhook_jobs_due_idx), so the cost
 * follows the backlog, not the table, and the counts are capped.
 */
export async function readBacklog(database: Database, nowMs: number): Promise<Backlog> {
  const { db } = database;
  const undispatched = db.selectFrom('outbox_events').where('dispatched_at', 'is', null);
  const undelivered = db.selectFrom('webhook_jobs').where('due_at', 'is not', null);
  const [dispatchCount, deliveryCount, dispatchOldest, deliveryOldest] = await Promise.all([
    db
      .selectFrom(undispatched.select(sql.lit(1).as('one')).limit(BACKLOG_COUNT_LIMIT).as('waiting'))
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .executeTakeFirstOrThrow(),
    db
      .selectFrom(undelivered.select(sql.lit(1).as('one')).limit(BACKLOG_COUNT_LIMIT).as('waiting'))
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .executeTakeFirstOrThrow(),
    undispatched.select((eb) => eb.fn.min('created_at').as('oldest')).executeTakeFirst(),
    undelivered.select((eb) => eb.fn.min('created_at').as('oldest')).executeTakeFirst(),
  ]);
  return {
    count: { dispatch: Number(dispatchCount.n), delivery: Number(deliveryCount.n) },
    oldestAgeSeconds: {
      dispatch: ageSeconds(dispatchOldest?.oldest, nowMs),
      delivery: ageSeconds(deliveryOldest?.oldest, nowMs),
    },
  };
}
