import { sql, type Kysely } from 'kysely';
import type { Ctx } from '../../core/context.js';
import type { DB } from '../../db/schema.js';
import type { WebhookDeliveryRow, WebhookRow } from '../../db/tables/webhooks.js';
import { paginate } from '../../db/paginate.js';

/**
 * Subscriptions belong to their creator (CONTRACT.md §6 Webhooks). A credential that sees
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
