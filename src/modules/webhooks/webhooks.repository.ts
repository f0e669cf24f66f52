import type { Kysely } from 'kysely';
import type { Ctx } from '../../core/context.js';
import type { DB } from '../../db/schema.js';
import type { WebhookDeliveryRow, WebhookRow } from '../../db/tables/webhooks.js';
import { paginate } from '../../db/paginate.js';

/** Subscriptions belong to the workspace: every query is scoped to it, none to a project. */

const selectWebhooks = (ctx: Ctx) => ctx.db.selectFrom('webhooks').selectAll().where('workspace_id', '=', ctx.workspace.id);

export const findWebhook = (ctx: Ctx, webhookId: string): Promise<WebhookRow | undefined> =>
  selectWebhooks(ctx).where('id', '=', webhookId).executeTakeFirst();

export function listWebhookPage(ctx: Ctx, page: { limit?: number; cursor?: string }) {
  return paginate(ctx, selectWebhooks(ctx), {
    scope: 'webhooks', filters: {}, ...page,
    orderBy: [['created_at', 'text'], ['id', 'text']], keyOf: (r: WebhookRow) => [r.created_at, r.id],
  });
}

export async function insertWebhook(db: Kysely<DB>, row: WebhookRow): Promise<void> {
  await db.insertInto('webhooks').values(row).execute();
}

export async function updateWebhook(db: Kysely<DB>, workspaceId: string, webhookId: string, changes: Partial<WebhookRow>): Promise<void> {
  await db.updateTable('webhooks').set(changes).where('workspace_id', '=', workspaceId).where('id', '=', webhookId).execute();
}

/** A subscription goes with its queued jobs and its delivery log. */
export async function deleteWebhook(ctx: Ctx, webhookId: string): Promise<void> {
  const workspaceId = ctx.workspace.id;
  await ctx.db.deleteFrom('webhook_deliveries').where('workspace_id', '=', workspaceId).where('webhook_id', '=', webhookId).execute();
  await ctx.db.deleteFrom('webhook_jobs').where('workspace_id', '=', workspaceId).where('webhook_id', '=', webhookId).execute();
  await ctx.db.deleteFrom('webhooks').where('workspace_id', '=', workspaceId).where('id', '=', webhookId).execute();
}

export function listDeliveryPage(ctx: Ctx, webhookId: string, page: { limit?: number; cursor?: string }) {
  const query = ctx.db.selectFrom('webhook_deliveries').selectAll()
    .where('workspace_id', '=', ctx.workspace.id).where('webhook_id', '=', webhookId);
  return paginate(ctx, query, {
    scope: 'webhook_deliveries', filters: { webhookId }, ...page,
    orderBy: [['created_at', 'text'], ['id', 'text']], keyOf: (r: WebhookDeliveryRow) => [r.created_at, r.id],
  });
}

/** The workspace file's subscriptions, which it converges by URL. */
export function listFileWebhooks(db: Kysely<DB>, workspaceId: string): Promise<WebhookRow[]> {
  return db.selectFrom('webhooks').selectAll().where('workspace_id', '=', workspaceId).where('creator_kind', '=', 'workspace_file').execute();
}
