import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../db/database.js';
import type { DB } from '../db/schema.js';
import type { WebhookJobState } from '../db/tables/webhooks.js';
import type { AttemptResult, FailureStreak } from './dispatch.repository.js';

/**
 * Records how attempts ended, many in one transaction: their delivery records, what their
 * jobs do next, and their subscriptions' failure streaks. The rows of a batch go to the
 * store as one JSON parameter and are written by one statement per table, so a batch costs
 * the same few statements and one commit however many attempts it holds.
 */

type Db = Kysely<DB>;

export interface FinishedAttempt {
  jobId: string;
  webhookId: string;
  /** The job changes only while this holder still holds it (see finishAttempts). */
  holderId: string;
  attempt: AttemptResult;
  next: { state: WebhookJobState; dueAt: string | null; now: string };
  /** Set when the job ends here: it counts in its subscription's failure streak. */
  final?: { succeeded: boolean };
}

/** The failure streak of a subscription whose last job ending in the batch failed, with that failure. */
export interface StreakAfterFailure {
  webhookId: string;
  streak: FailureStreak;
  /** The failed attempt that ended last, as recorded (its `next.now`). */
  endedAt: string;
}

function updateDeliveries(trx: Db, dialect: DialectName, rows: object[]) {
  const json = JSON.stringify(rows);
  return dialect === 'postgres'
    ? sql`update webhook_deliveries d
        set status = v.status, response_status = v.response_status, duration_ms = v.duration_ms, error = v.error
        from json_to_recordset(${json}::json)
          as v(id text, status text, response_status integer, duration_ms integer, error text)
        where d.id = v.id`.execute(trx)
    : sql`update webhook_deliveries
        set status = v.status, response_status = v.response_status, duration_ms = v.duration_ms, error = v.error
        from (select value ->> 'id' as id, value ->> 'status' as status,
                value ->> 'response_status' as response_status, value ->> 'duration_ms' as duration_ms,
                value ->> 'error' as error
              from json_each(${json})) as v
        where webhook_deliveries.id = v.id`.execute(trx);
}

/** Moves the jobs still held by the holder that ran them; answers the ids it moved. */
async function moveJobs(trx: Db, dialect: DialectName, rows: object[]): Promise<Set<string>> {
  const json = JSON.stringify(rows);
  const moved =
    dialect === 'postgres'
      ? await sql<{ id: string }>`update webhook_jobs j
          set state = v.state, due_at = v.due_at, updated_at = v.updated_at
          from json_to_recordset(${json}::json)
            as v(id text, holder_id text, state text, due_at text, updated_at text)
          where j.id = v.id and j.holder_id = v.holder_id and j.state = 'sending'
          returning j.id`.execute(trx)
      : await sql<{ id: string }>`update webhook_jobs
          set state = v.state, due_at = v.due_at, updated_at = v.updated_at
          from (select value ->> 'id' as id, value ->> 'holder_id' as holder_id, value ->> 'state' as state,
                  value ->> 'due_at' as due_at, value ->> 'updated_at' as updated_at
                from json_each(${json})) as v
          where webhook_jobs.id = v.id and webhook_jobs.holder_id = v.holder_id and webhook_jobs.state = 'sending'
          returning webhook_jobs.id`.execute(trx);
  return new Set(moved.rows.map((row) => row.id));
}

/**
 * Counts the jobs that ended, in the order they ended, in their subscriptions' failure
 * streaks: a success ends a streak, a failed last attempt starts one (or goes on with it).
 * Per subscription only the batch's outcome is written: ended by a success, or failing
 * since its first failure after its last success (or since before, if the batch had none).
 */
async function countInStreaks(trx: Db, ended: FinishedAttempt[]): Promise<StreakAfterFailure[]> {
  const bySubscription = new Map<string, FinishedAttempt[]>();
  for (const item of ended) bySubscription.set(item.webhookId, [...(bySubscription.get(item.webhookId) ?? []), item]);
  const streaks: StreakAfterFailure[] = [];
  for (const [webhookId, items] of bySubscription) {
    let lastSuccess = -1;
    items.forEach((item, index) => {
      if (item.final?.succeeded) lastSuccess = index;
    });
    const failures = items.slice(lastSuccess + 1);
    if (failures.length === 0) {
      await trx
        .updateTable('webhooks')
        .set({ failing_since: null })
        .where('id', '=', webhookId)
        .where('failing_since', 'is not', null)
        .execute();
      continue;
    }
    const since = failures[0].next.now;
    const streak = await trx
      .updateTable('webhooks')
      .set((eb) => ({ failing_since: lastSuccess >= 0 ? since : eb.fn.coalesce('failing_since', eb.val(since)) }))
      .where('id', '=', webhookId)
      .returning(['workspace_id', 'failing_since', 'active'])
      .executeTakeFirst();
    if (streak) streaks.push({ webhookId, streak, endedAt: failures[failures.length - 1].next.now });
  }
  return streaks;
}

/**
 * Records a batch of finished attempts in one transaction. A job changes only while the
 * holder that ran the attempt still holds it: a holder whose lease lapsed and whose job
 * another process took over records its attempt, but leaves the job to the new holder (and
 * out of the streak). Answers the streaks that a failure left running.
 */
export async function finishAttempts(
  db: Db,
  dialect: DialectName,
  items: FinishedAttempt[],
): Promise<StreakAfterFailure[]> {
  if (items.length === 0) return [];
  return db.transaction().execute(async (trx) => {
    const logged = items.filter((item) => item.attempt.deliveryId !== null);
    // Independent statements, sent together (on PostgreSQL, one round trip for both).
    const [, moved] = await Promise.all([
      logged.length > 0
        ? updateDeliveries(
            trx,
            dialect,
            logged.map(({ attempt }) => ({
              id: attempt.deliveryId,
              status: attempt.status,
              response_status: attempt.responseStatus,
              duration_ms: attempt.durationMs,
              error: attempt.error,
            })),
          )
        : undefined,
      moveJobs(
        trx,
        dialect,
        items.map((item) => ({
          id: item.jobId,
          holder_id: item.holderId,
          state: item.next.state,
          due_at: item.next.dueAt,
          updated_at: item.next.now,
        })),
      ),
    ]);
    return countInStreaks(
      trx,
      items.filter((item) => item.final && moved.has(item.jobId)),
    );
  });
}
