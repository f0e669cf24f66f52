import { sql, type Kysely } from 'kysely';
import { queryTemplate, singleQuery } from '../db/compiled-query.js';
import type { DialectName } from '../db/database.js';
import { INDEX_ORDER_PLANS_ONLY } from '../db/pg-plan-settings.js';
import type { DB } from '../db/schema.js';
import type { DeliveryStatus, WebhookDeliveryRow, WebhookJobRow, WebhookJobState } from '../db/tables/webhooks.js';
import { pickFairly, SUBSCRIPTION_CONCURRENCY } from './scheduling.js';

/**
 * The dispatcher's SQL: outbox fan-out, job claims and the delivery log. On PostgreSQL,
 * fan-out locks events with FOR UPDATE SKIP LOCKED and claims take an advisory lock, so
 * several processes share the queue without sending anything twice; on SQLite the single
 * writer already serialises them.
 */

type Db = Kysely<DB>;

export interface PendingEvent {
  id: string;
  workspace_id: string;
  type: string;
  project_id: string | null;
  /** See audience.ts; null when the event concerns its own project only. */
  audience: string | null;
  created_at: string;
}

/**
 * Read on every dispatcher tick, which every write wakes: built once per dialect and batch
 * size. The batch size is a literal, as a page's LIMIT is (see fetchLimit): with a parameter,
 * PostgreSQL planned the read anew on every tick.
 */
const undispatchedEvents = queryTemplate((db, _slots: Record<string, never>, shape: string) => {
  const [dialect, limit] = shape.split(' ');
  const query = db
    .selectFrom('outbox_events')
    .select(['id', 'workspace_id', 'type', 'project_id', 'audience', 'created_at'])
    .where('dispatched_at', 'is', null)
    .orderBy('id')
    .limit(sql.lit(Number(limit)));
  return dialect === 'postgres' ? query.forUpdate().skipLocked() : query;
});

export async function takeUndispatchedEvents(trx: Db, dialect: DialectName, limit: number): Promise<PendingEvent[]> {
  if (!Number.isSafeInteger(limit) || limit < 1) throw new Error(`takeUndispatchedEvents: batch of ${limit}`);
  // The read walks the partial index of waiting rows in id order (db/pg-plan-settings.ts).
  if (dialect === 'postgres') await sql.raw(INDEX_ORDER_PLANS_ONLY).execute(trx);
  return undispatchedEvents.rows({ db: trx, dialect }, `${dialect} ${limit}`, {});
}

export async function markDispatched(trx: Db, eventIds: string[], now: string): Promise<void> {
  await trx.updateTable('outbox_events').set({ dispatched_at: now }).where('id', 'in', eventIds).execute();
}

export function listActiveSubscriptions(trx: Db, workspaceIds: string[]) {
  return trx
    .selectFrom('webhooks')
    .select(['id', 'workspace_id', 'events', 'creator_kind', 'creator_id', 'creator_token_id', 'created_at'])
    .where('workspace_id', 'in', workspaceIds)
    .where('active', '=', 1)
    .execute();
}

export function listCreatorTokens(trx: Db, tokenIds: string[]) {
  return trx
    .selectFrom('api_tokens')
    .select(['id', 'active', 'expires_at', 'all_projects'])
    .where('id', 'in', tokenIds)
    .execute();
}

export function listGrants(trx: Db, tokenIds: string[], projectIds: string[]) {
  return trx
    .selectFrom('token_project_grants')
    .select(['token_id', 'project_id'])
    .where('token_id', 'in', tokenIds)
    .where('project_id', 'in', projectIds)
    .execute();
}

export async function insertJobs(trx: Db, jobs: WebhookJobRow[]): Promise<void> {
  if (jobs.length === 0) return;
  await trx
    .insertInto('webhook_jobs')
    .values(jobs)
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
}

/** Claims of all processes are taken one at a time on PostgreSQL, so the caps hold across nodes. */
const CLAIM_LOCK = sql`select pg_advisory_xact_lock(hashtext('wsx.webhook_job_claims'))`;

export interface ClaimRequest {
  now: string;
  leaseUntil: string;
  holder: { id: string; host: string; pid: number };
  limit: number;
}

/**
 * Leases due jobs of active subscriptions (and the pings and redeliveries a client asked
 * for, whatever the subscription's state), fairly (scheduling.ts): state `sending`, one
 * more attempt, due again at the lease end (so a holder that dies leaves the job to be
 * claimed again), and the holder recorded. A job is due when its attempt time has come or
 * its holder's lease lapsed. Only each subscription's oldest due jobs are candidates, so a
 * backlog of one subscription cannot crowd the others out of the candidate list.
 */
/** Jobs being sent per subscription: read on every dispatcher tick, so built once. */
const sendingJobCounts = singleQuery((db, slots: { now: string }) =>
  db
    .selectFrom('webhook_jobs')
    .select(['workspace_id', 'webhook_id'])
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('state', '=', 'sending')
    .where('due_at', '>', slots.now)
    .groupBy(['workspace_id', 'webhook_id']),
);

/** Due jobs, at most SUBSCRIPTION_CONCURRENCY per subscription, oldest first: built once. */
const dueJobCandidates = singleQuery((db, slots: { now: string }) => {
  const ranked = db
    .selectFrom('webhook_jobs as j')
    .innerJoin('webhooks as w', 'w.id', 'j.webhook_id')
    .select(['j.id', 'j.workspace_id', 'j.webhook_id', 'j.due_at'])
    .select(sql<number>`row_number() over (partition by j.webhook_id order by j.due_at, j.id)`.as('sub_rank'))
    .where('j.due_at', '<=', slots.now)
    .where((eb) => eb.or([eb('w.active', '=', 1), eb('j.requested', '=', 1)]));
  return db
    .selectFrom(ranked.as('c'))
    .select(['c.id', 'c.workspace_id', 'c.webhook_id'])
    .where('c.sub_rank', '<=', SUBSCRIPTION_CONCURRENCY)
    .orderBy('c.due_at')
    .orderBy('c.id');
});

export async function claimDueJobs(trx: Db, dialect: DialectName, request: ClaimRequest): Promise<WebhookJobRow[]> {
  const { now } = request;
  if (dialect === 'postgres') await CLAIM_LOCK.execute(trx);
  const running = await sendingJobCounts.rows({ db: trx, dialect }, { now });
  const candidates = await dueJobCandidates.rows({ db: trx, dialect }, { now });
  const chosen = pickFairly(
    candidates,
    running.map((row) => ({ ...row, n: Number(row.n) })),
    request.limit,
  );
  if (chosen.length === 0) return [];
  return trx
    .updateTable('webhook_jobs')
    .set({
      state: 'sending',
      attempts: sql`attempts + 1`,
      due_at: request.leaseUntil,
      updated_at: now,
      holder_id: request.holder.id,
      holder_host: request.holder.host,
      holder_pid: request.holder.pid,
    })
    .where('id', 'in', chosen)
    .where('due_at', '<=', now)
    .returningAll()
    .execute();
}

/** Holders other than `selfId` with jobs under way on this host (the live queue is small: due_at is set). */
export function listLocalHolders(db: Db, host: string, selfId: string) {
  return db
    .selectFrom('webhook_jobs')
    .select(['holder_id', 'holder_pid'])
    .distinct()
    .where('due_at', 'is not', null)
    .where('state', '=', 'sending')
    .where('holder_host', '=', host)
    .where('holder_id', '!=', selfId)
    .execute() as Promise<Array<{ holder_id: string; holder_pid: number }>>;
}

/** Ends the leases of the given holders' claims now, so any dispatcher may claim those jobs. */
export async function releaseClaims(db: Db, holderIds: string[], now: string): Promise<void> {
  await db
    .updateTable('webhook_jobs')
    .set({ due_at: now })
    .where('due_at', 'is not', null)
    .where('state', '=', 'sending')
    .where('holder_id', 'in', holderIds)
    .execute();
}

export async function renewHeldLeases(db: Db, holderId: string, leaseUntil: string): Promise<void> {
  await db
    .updateTable('webhook_jobs')
    .set({ due_at: leaseUntil })
    .where('due_at', 'is not', null)
    .where('state', '=', 'sending')
    .where('holder_id', '=', holderId)
    .execute();
}

/** An attempt still `pending` when its job is claimed again was cut off by a stopped process. */
export async function failInterruptedAttempts(trx: Db, jobIds: string[]): Promise<void> {
  await trx
    .updateTable('webhook_deliveries')
    .set({ status: 'failed', error: 'attempt interrupted: the sending process stopped' })
    .where('job_id', 'in', jobIds)
    .where('status', '=', 'pending')
    .execute();
}

export async function insertDeliveries(trx: Db, rows: WebhookDeliveryRow[]): Promise<void> {
  if (rows.length > 0) await trx.insertInto('webhook_deliveries').values(rows).execute();
}

/** Where and how to send, and whether the token that set the URL may still manage the subscription. */
export function listSubscriptionTargets(db: Db, webhookIds: string[]) {
  return db
    .selectFrom('webhooks as w')
    .leftJoin('api_tokens as setter', 'setter.id', 'w.url_set_by_token_id')
    .select([
      'w.id',
      'w.url',
      'w.secret',
      'w.previous_secret',
      'w.previous_secret_expires_at',
      'w.creator_token_id',
      'w.url_set_by_token_id',
      'setter.active as setter_active',
      'setter.expires_at as setter_expires_at',
      'setter.all_projects as setter_all_projects',
    ])
    .where('w.id', 'in', webhookIds)
    .execute();
}

export function listEventPayloads(db: Db, eventIds: string[]) {
  return db.selectFrom('outbox_events').select(['id', 'payload']).where('id', 'in', eventIds).execute();
}

export interface AttemptResult {
  deliveryId: string | null;
  status: Exclude<DeliveryStatus, 'pending'>;
  responseStatus: number | null;
  durationMs: number | null;
  error: string | null;
}

/** A subscription's running streak of deliveries whose last attempt failed. */
export interface FailureStreak {
  workspace_id: string;
  /** When the streak began. */
  failing_since: string | null;
  active: number;
}

/**
 * Counts a finished job in its subscription's failure streak: a success ends the streak, a
 * failed last attempt starts it (or goes on with it). Answers the streak after a failure.
 */
async function countInStreak(
  trx: Db,
  webhookId: string,
  succeeded: boolean,
  now: string,
): Promise<FailureStreak | undefined> {
  if (succeeded) {
    await trx
      .updateTable('webhooks')
      .set({ failing_since: null })
      .where('id', '=', webhookId)
      .where('failing_since', 'is not', null)
      .execute();
    return undefined;
  }
  return trx
    .updateTable('webhooks')
    .set((eb) => ({ failing_since: eb.fn.coalesce('failing_since', eb.val(now)) }))
    .where('id', '=', webhookId)
    .returning(['workspace_id', 'failing_since', 'active'])
    .executeTakeFirst();
}

/**
 * Records how an attempt ended and what the job does next, in one transaction. The job
 * changes only while `holderId` still holds it: a holder whose lease lapsed and whose job
 * another process took over records its attempt, but leaves the job to the new holder.
 * A job that finishes here (`final`) is counted in its subscription's failure streak,
 * which is answered after a failure.
 */
export async function finishAttempt(
  db: Db,
  jobId: string,
  holderId: string,
  attempt: AttemptResult,
  next: { state: WebhookJobState; dueAt: string | null; now: string },
  final?: { webhookId: string; succeeded: boolean },
): Promise<FailureStreak | undefined> {
  return db.transaction().execute(async (trx) => {
    if (attempt.deliveryId) {
      await trx
        .updateTable('webhook_deliveries')
        .set({
          status: attempt.status,
          response_status: attempt.responseStatus,
          duration_ms: attempt.durationMs,
          error: attempt.error,
        })
        .where('id', '=', attempt.deliveryId)
        .execute();
    }
    const moved = await trx
      .updateTable('webhook_jobs')
      .set({ state: next.state, due_at: next.dueAt, updated_at: next.now })
      .where('id', '=', jobId)
      .where('holder_id', '=', holderId)
      .where('state', '=', 'sending')
      .executeTakeFirst();
    if (!final || moved.numUpdatedRows === 0n) return undefined;
    return countInStreak(trx, final.webhookId, final.succeeded, next.now);
  });
}
