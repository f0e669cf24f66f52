import { sql, type Kysely } from 'kysely';
import type { Ctx } from '../../db/context.js';
import type { DB } from '../../db/schema.js';
import type { WebhookDeliveryRow, WebhookRow } from '../../db/tables/webhooks.js';
import { paginate } from '../../db/paginate.js';

/**
 * Subscriptions belong to their creator (docs/webhooks.md, "Subscribing"). A credential that sees
 * every project of the workspace (an all-projects token, an OAuth user) sees all of the
 * workspace's subscriptions; any other sees only those it made, and to it the rest do not
 * exist. Every read goes through selectWebhooks, so lists and lookups by id agree.
 */

const selectWebhooks = (ctx: Ctx) => {
  const query = ctx.db.selectFrom('webhooks').selectAll().where('workspace_id', '=', ctx.workspace.id);
  if (ctx.access.all) return query;
  const { principal } = ctx;
  return principal.kind === 'api_token'
    ? query.where('creator_kind', '=', 'api_token').where('creator_token_id', '=', principal.tokenId)
    : query.where('creator_kind', '=', 'user').where('creator_id', '=', principal.userId);
};

export const findWebhook = (ctx: Ctx, webhookId: string): Promise<WebhookRow | undefined> =>
  selectWebhooks(ctx).where('id', '=', webhookId).executeTakeFirst();

export function listWebhookPage(ctx: Ctx, page: { limit?: number; cursor?: string }) {
  return paginate(ctx, selectWebhooks(ctx), {
    scope: 'webhooks',
    filters: {},
    ...page,
    orderBy: [
      ['created_at', 'text'],
      ['id', 'text'],
    ],
    keyOf: (r: WebhookRow) => [r.created_at, r.id],
  });
}

/**
 * Serialises subscription creation in one workspace until the transaction ends, so two
 * concurrent creates cannot both pass the cap. On PostgreSQL the no-op update takes the
 * workspace row's lock; on SQLite the transaction already holds the only write lock.
 */
export async function lockWorkspaceSubscriptions(db: Kysely<DB>, workspaceId: string): Promise<void> {
  await db
    .updateTable('workspaces')
    .set((eb) => ({ updated_at: eb.ref('updated_at') }))
    .where('id', '=', workspaceId)
    .execute();
}

/** Every subscription of the workspace, whoever made it and whether active or not. */
export async function countWebhooks(db: Kysely<DB>, workspaceId: string): Promise<number> {
  const row = await db
    .selectFrom('webhooks')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function insertWebhook(db: Kysely<DB>, row: WebhookRow): Promise<void> {
  await db.insertInto('webhooks').values(row).execute();
}

export async function updateWebhook(
  db: Kysely<DB>,
  workspaceId: string,
  webhookId: string,
  changes: Partial<WebhookRow>,
): Promise<number> {
  const row = await db
    .updateTable('webhooks')
    .set({ ...changes, version: sql`version + 1` })
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', webhookId)
    .returning('version')
    .executeTakeFirstOrThrow();
  return row.version;
}

/** A subscription goes with its queued jobs and its delivery log. */
export async function deleteWebhook(ctx: Ctx, webhookId: string): Promise<void> {
  const workspaceId = ctx.workspace.id;
  await ctx.db
    .deleteFrom('webhook_deliveries')
    .where('workspace_id', '=', workspaceId)
    .where('webhook_id', '=', webhookId)
    .execute();
  await ctx.db
    .deleteFrom('webhook_jobs')
    .where('workspace_id', '=', workspaceId)
    .where('webhook_id', '=', webhookId)
    .execute();
  await ctx.db.deleteFrom('webhooks').where('workspace_id', '=', workspaceId).where('id', '=', webhookId).execute();
}

export function listDeliveryPage(ctx: Ctx, webhookId: string, page: { limit?: number; cursor?: string }) {
  const query = ctx.db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('workspace_id', '=', ctx.workspace.id)
    .where('webhook_id', '=', webhookId);
  return paginate(ctx, query, {
    scope: 'webhook_deliveries',
    filters: { webhookId },
    ...page,
    orderBy: [
      ['created_at', 'text'],
      ['id', 'text'],
    ],
    keyOf: (r: WebhookDeliveryRow) => [r.created_at, r.id],
  });
}

/** The workspace file's subscriptions, which it converges by URL. */
export function listFileWebhooks(db: Kysely<DB>, workspaceId: string): Promise<WebhookRow[]> {
  return db
    .selectFrom('webhooks')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('creator_kind', '=', 'workspace_file')
    .execute();
}

/** One delivery record of one of the caller's subscriptions. */
export const findDelivery = (ctx: Ctx, webhookId: string, deliveryId: string) =>
  ctx.db
    .selectFrom('webhook_deliveries')
    .select(['job_id', 'event_id'])
    .where('workspace_id', '=', ctx.workspace.id)
    .where('webhook_id', '=', webhookId)
    .where('id', '=', deliveryId)
    .executeTakeFirst();

/** A delivery job, with whether its payload is still kept (on the job, or as the outbox event). */
export const findJobWithPayload = (db: Kysely<DB>, jobId: string) =>
  db
    .selectFrom('webhook_jobs as j')
    .leftJoin('outbox_events as e', 'e.id', 'j.event_id')
    .select(['j.id', 'j.event_id', 'j.event_type', 'j.state', 'j.attempts', 'j.attempt_limit'])
    .select((eb) => eb.or([eb('j.body', 'is not', null), eb('e.id', 'is not', null)]).as('has_payload'))
    .where('j.id', '=', jobId)
    .executeTakeFirst();

/**
 * Makes a job due now as a requested one, unless an attempt of it is under way (then
 * answers false): a client's redelivery.
 */
export async function requeueJob(
  db: Kysely<DB>,
  jobId: string,
  attemptLimit: number | null,
  now: string,
): Promise<boolean> {
  const result = await db
    .updateTable('webhook_jobs')
    .set({ state: 'pending', due_at: now, requested: 1, attempt_limit: attemptLimit, updated_at: now })
    .where('id', '=', jobId)
    .where('state', '!=', 'sending')
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Deactivates a subscription for its failures, if it is still active and still in the
 * streak that began at `failingSince` (no success, no re-activation since); answers the
 * row as it now is, or undefined when it changed meanwhile.
 */
export function deactivateFailing(db: Kysely<DB>, webhookId: string, failingSince: string, now: string) {
  return db
    .updateTable('webhooks')
    .set({
      active: 0,
      disabled_reason: 'consecutive_failures',
      disabled_at: now,
      updated_at: now,
      version: sql`version + 1`,
    })
    .where('id', '=', webhookId)
    .where('active', '=', 1)
    .where('failing_since', '=', failingSince)
    .returningAll()
    .executeTakeFirst();
}
