import { sql, type Kysely } from 'kysely';
import { queryTemplate, singleQuery } from '../db/compiled-query.js';
import type { DialectName } from '../db/database.js';
import { INDEX_ORDER_PLANS_ONLY } from '../db/postgres/plan-settings.js';
import type { DB } from '../db/schema.js';
import type { DeliveryStatus, WebhookDeliveryRow, WebhookJobRow } from '../db/tables/webhooks.js';
import { STARTING_LIMITS, type SubscriptionLimits } from './in-flight-limits.js';
import { pickFairly, type ClaimCandidate } from './scheduling.js';

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
  /** What its deliveries send as `traceparent` (W3C Trace Context); null when its write continued no trace. */
  traceparent: string | null;
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
    .select(['id', 'workspace_id', 'type', 'project_id', 'audience', 'traceparent', 'created_at'])
    .where('dispatched_at', 'is', null)
    .orderBy('id')
    .limit(sql.lit(Number(limit)));
  return dialect === 'postgres' ? query.forUpdate().skipLocked() : query;
});

export async function takeUndispatchedEvents(trx: Db, dialect: DialectName, limit: number): Promise<PendingEvent[]> {
  if (!Number.isSafeInteger(limit) || limit < 1) throw new Error(`takeUndispatchedEvents: batch of ${limit}`);
  // The read walks the partial index of waiting rows in id order (db/postgres/plan-settings.ts).
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

/**
 * Claims of all processes are taken one at a time on PostgreSQL, so the caps hold across
 * nodes. The same statement keeps the claim's reads on their indexes (db/postgres/plan-settings.ts):
 * a plan made while the queue was empty would otherwise read the whole queue once it is not.
 * The small subscriptions table is still read whole, and the penalty the planner then adds
 * to its cost made it compile the claim's read to machine code (JIT) on every tick, which
 * took far longer than running it: JIT is off for the claim.
 */
const CLAIM_LOCK = sql.raw(
  `${INDEX_ORDER_PLANS_ONLY}, set_config('jit', 'off', true), pg_advisory_xact_lock(hashtext('wsx.webhook_job_claims'))`,
);

export interface ClaimRequest {
  now: string;
  leaseUntil: string;
  holder: { id: string; host: string; pid: number };
  limit: number;
}

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

/**
 * Due jobs, at most `perSubscription` of each subscription, oldest first: for each active
 * subscription its oldest due jobs (webhook_jobs_queue_idx, walked in due order and left at
 * the limit, however long its backlog), and the requested jobs of inactive ones
 * (webhook_jobs_requested_idx). PostgreSQL walks each subscription's entries in a lateral
 * join; SQLite runs the correlated subquery once per subscription, and its CROSS JOIN keeps
 * the subscriptions the outer loop (joined the other way, SQLite read every job and ran the
 * subquery for each). The ranking over every due job this replaces read the whole backlog on
 * every tick.
 */
const REQUESTED_OF_INACTIVE = 100;

function dueJobCandidates(trx: Db, dialect: DialectName, now: string, perSubscription: number) {
  const requested = sql`select j.id, j.workspace_id, j.webhook_id, j.due_at
    from webhook_jobs j join webhooks w on w.id = j.webhook_id
    where j.requested = 1 and j.due_at is not null and j.due_at <= ${now} and w.active = 0
    order by j.due_at, j.id limit ${REQUESTED_OF_INACTIVE}`;
  const active =
    dialect === 'postgres'
      ? sql`select c.id, c.workspace_id, c.webhook_id, c.due_at from webhooks w
          cross join lateral (
            select j.id, j.workspace_id, j.webhook_id, j.due_at from webhook_jobs j
            where j.webhook_id = w.id and j.due_at is not null and j.due_at <= ${now}
            order by j.due_at, j.id limit ${perSubscription}
          ) c
          where w.active = 1`
      : sql`select c.id, c.workspace_id, c.webhook_id, c.due_at from webhooks w
          cross join webhook_jobs c
          where w.active = 1 and c.id in (
            select j.id from webhook_jobs j
            where j.webhook_id = w.id and j.due_at is not null and j.due_at <= ${now}
            order by j.due_at, j.id limit ${perSubscription}
          )`;
  return sql<ClaimCandidate & { due_at: string }>`select * from (${active}) a
    union all select * from (${requested}) r
    order by due_at, id`.execute(trx);
}

/**
 * Leases due jobs of active subscriptions (and the pings and redeliveries a client asked
 * for, whatever the subscription's state), fairly and within each subscription's in-flight
 * limit (scheduling.ts, in-flight-limits.ts): state `sending`, one more attempt, due again
 * at the lease end (so a holder that dies leaves the job to be claimed again), and the
 * holder recorded. A job is due when its attempt time has come or its holder's lease
 * lapsed. Only each subscription's oldest due jobs (up to the largest in-flight limit) are
 * candidates, so a backlog of one subscription cannot crowd the others out of the list.
 */
export async function claimDueJobs(
  trx: Db,
  dialect: DialectName,
  request: ClaimRequest,
  limits: SubscriptionLimits = STARTING_LIMITS,
): Promise<WebhookJobRow[]> {
  const { now } = request;
  // Sent together: PostgreSQL runs a connection's statements in order (the pool pipelines
  // them), so both reads still follow the lock, at the cost of one round trip instead of three.
  const [, running, { rows: candidates }] = await Promise.all([
    dialect === 'postgres' ? CLAIM_LOCK.execute(trx) : undefined,
    sendingJobCounts.rows({ db: trx, dialect }, { now }),
    dueJobCandidates(trx, dialect, now, limits.largest()),
  ]);
  const chosen = pickFairly(
    candidates,
    running.map((row) => ({ ...row, n: Number(row.n) })),
    request.limit,
    (webhookId) => limits.limitOf(webhookId),
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
