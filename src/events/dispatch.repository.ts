import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../db/connect.js';
import type { DB } from '../db/schema.js';
import type { DeliveryStatus, WebhookDeliveryRow, WebhookJobRow, WebhookJobState } from '../db/tables/webhooks.js';

/**
 * The dispatcher's SQL: outbox fan-out, job claims and the delivery log. On PostgreSQL,
 * claims lock with FOR UPDATE SKIP LOCKED so several processes share the queue without
 * sending anything twice; on SQLite the single writer already serialises them.
 */

type Db = Kysely<DB>;

export interface PendingEvent {
  id: string;
  workspace_id: string;
  type: string;
  project_id: string | null;
  created_at: string;
}

export async function takeUndispatchedEvents(trx: Db, dialect: DialectName, limit: number): Promise<PendingEvent[]> {
  let query = trx.selectFrom('outbox_events').select(['id', 'workspace_id', 'type', 'project_id', 'created_at'])
    .where('dispatched_at', 'is', null).orderBy('id').limit(limit);
  if (dialect === 'postgres') query = query.forUpdate().skipLocked();
  return query.execute();
}

export async function markDispatched(trx: Db, eventIds: string[], now: string): Promise<void> {
  await trx.updateTable('outbox_events').set({ dispatched_at: now }).where('id', 'in', eventIds).execute();
}

export function listActiveSubscriptions(trx: Db, workspaceIds: string[]) {
  return trx.selectFrom('webhooks')
    .select(['id', 'workspace_id', 'events', 'creator_kind', 'creator_token_id', 'created_at'])
    .where('workspace_id', 'in', workspaceIds).where('active', '=', 1).execute();
}

export function listCreatorTokens(trx: Db, tokenIds: string[]) {
  return trx.selectFrom('api_tokens').select(['id', 'active', 'all_projects']).where('id', 'in', tokenIds).execute();
}

export function listGrants(trx: Db, tokenIds: string[], projectIds: string[]) {
  return trx.selectFrom('token_project_grants').select(['token_id', 'project_id'])
    .where('token_id', 'in', tokenIds).where('project_id', 'in', projectIds).execute();
}

export async function insertJobs(trx: Db, jobs: WebhookJobRow[]): Promise<void> {
  if (jobs.length === 0) return;
  await trx.insertInto('webhook_jobs').values(jobs).onConflict((oc) => oc.column('id').doNothing()).execute();
}

/**
 * Leases due jobs of active subscriptions: state `sending`, one more attempt, due again at
 * the lease end (so a process that dies mid-send leaves the job to be claimed again).
 */
export async function claimDueJobs(trx: Db, dialect: DialectName, now: string, leaseUntil: string, limit: number): Promise<WebhookJobRow[]> {
  let due = trx.selectFrom('webhook_jobs').select('id')
    .where('due_at', '<=', now)
    .where('webhook_id', 'in', trx.selectFrom('webhooks').select('id').where('active', '=', 1))
    .orderBy('due_at').limit(limit);
  if (dialect === 'postgres') due = due.forUpdate().skipLocked();
  return trx.updateTable('webhook_jobs')
    .set({ state: 'sending', attempts: sql`attempts + 1`, due_at: leaseUntil, updated_at: now })
    .where('id', 'in', due)
    .returningAll()
    .execute();
}

/** An attempt still `pending` when its job is claimed again was cut off by a stopped process. */
export async function failInterruptedAttempts(trx: Db, jobIds: string[]): Promise<void> {
  await trx.updateTable('webhook_deliveries').set({ status: 'failed', error: 'attempt interrupted: the sending process stopped' })
    .where('job_id', 'in', jobIds).where('status', '=', 'pending').execute();
}

export async function insertDeliveries(trx: Db, rows: WebhookDeliveryRow[]): Promise<void> {
  if (rows.length > 0) await trx.insertInto('webhook_deliveries').values(rows).execute();
}

export function listSubscriptionTargets(db: Db, webhookIds: string[]) {
  return db.selectFrom('webhooks').select(['id', 'url', 'secret']).where('id', 'in', webhookIds).execute();
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

/** Records how an attempt ended and what the job does next, in one transaction. */
export async function finishAttempt(
  db: Db, jobId: string, attempt: AttemptResult, next: { state: WebhookJobState; dueAt: string | null; now: string },
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    if (attempt.deliveryId) {
      await trx.updateTable('webhook_deliveries')
        .set({ status: attempt.status, response_status: attempt.responseStatus, duration_ms: attempt.durationMs, error: attempt.error })
        .where('id', '=', attempt.deliveryId).execute();
    }
    await trx.updateTable('webhook_jobs').set({ state: next.state, due_at: next.dueAt, updated_at: next.now }).where('id', '=', jobId).execute();
  });
}
