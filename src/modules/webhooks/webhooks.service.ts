import type { Kysely } from 'kysely';
import type { Ctx } from '../../core/context.js';
import { ApiError } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import { hasOwn, isHttpUrl } from '../../core/values.js';
import type { DB } from '../../db/schema.js';
import type { WebhookRow } from '../../db/tables/webhooks.js';
import { refusedAddressOf } from '../../events/receiver-address.js';
import { newWebhookSecret } from '../../events/signer.js';
import { checkEventFilter } from './event-filter.js';
import { presentDelivery, presentWebhook, type WebhookView } from './webhooks.presenter.js';
import {
  deleteWebhook, findWebhook, insertWebhook, listDeliveryPage, listFileWebhooks, listWebhookPage, updateWebhook,
} from './webhooks.repository.js';

interface Page {
  limit?: number;
  cursor?: string;
}

export interface WebhookInput {
  url?: unknown;
  events?: unknown;
  active?: boolean;
}

/** An absolute http(s) URL whose host is not loopback, private or link-local (unless allowed). */
async function validUrl(ctx: Ctx, value: unknown): Promise<string> {
  if (!isHttpUrl(value)) throw new ApiError('INVALID_WEBHOOK_URL', { field: 'url' }, { message: 'url must be an absolute http or https URL of at most 2,048 characters.' });
  if (ctx.config.webhookAllowPrivate) return value;
  const address = await refusedAddressOf(new URL(value));
  if (address) {
    throw new ApiError('INVALID_WEBHOOK_URL', { field: 'url', address }, { message: `The receiver address ${address} is loopback, private or link-local.` });
  }
  return value;
}

function validEvents(value: unknown): string[] {
  const check = checkEventFilter(value);
  if (!check.ok) throw new ApiError('VALIDATION_FAILED', { field: check.index === null ? 'events' : `events.${check.index}` }, { message: check.problem });
  return check.events;
}

async function requireWebhook(ctx: Ctx, webhookId: string): Promise<WebhookRow> {
  const webhook = await findWebhook(ctx, webhookId);
  if (!webhook) throw new ApiError('WEBHOOK_NOT_FOUND', { webhookId });
  return webhook;
}

/** The creator decides which projects' events the subscription receives. */
function creatorOf(ctx: Ctx): Pick<WebhookRow, 'creator_kind' | 'creator_id' | 'creator_token_id'> {
  return ctx.principal.kind === 'api_token'
    ? { creator_kind: 'api_token', creator_id: ctx.principal.id, creator_token_id: ctx.principal.tokenId }
    : { creator_kind: 'user', creator_id: ctx.principal.userId, creator_token_id: null };
}

export async function listWebhooks(ctx: Ctx, page: Page) {
  const { rows, pageInfo } = await listWebhookPage(ctx, page);
  return { webhooks: rows.map(presentWebhook), pageInfo };
}

export async function getWebhook(ctx: Ctx, webhookId: string): Promise<WebhookView> {
  return presentWebhook(await requireWebhook(ctx, webhookId));
}

export async function createWebhook(ctx: Ctx, input: WebhookInput): Promise<WebhookView & { secret: string }> {
  const url = await validUrl(ctx, input.url);
  const events = validEvents(input.events);
  const row: WebhookRow = {
    id: newId('whk', ctx.nowMs), workspace_id: ctx.workspace.id, url, events: JSON.stringify(events), secret: newWebhookSecret(),
    active: input.active === false ? 0 : 1, ...creatorOf(ctx), created_at: ctx.now, updated_at: ctx.now,
  };
  await insertWebhook(ctx.db, row);
  return { ...presentWebhook(row), secret: row.secret };
}

export async function updateWebhookById(ctx: Ctx, webhookId: string, input: WebhookInput): Promise<WebhookView> {
  const webhook = await requireWebhook(ctx, webhookId);
  if (!['url', 'events', 'active'].some((field) => hasOwn(input, field))) {
    throw new ApiError('UNSUPPORTED_ACTION', { webhookId }, { message: 'The update names no field to change.' });
  }
  const changes: Partial<WebhookRow> = { updated_at: ctx.now };
  if (hasOwn(input, 'url')) changes.url = await validUrl(ctx, input.url);
  if (hasOwn(input, 'events')) changes.events = JSON.stringify(validEvents(input.events));
  if (hasOwn(input, 'active')) changes.active = input.active ? 1 : 0;
  await updateWebhook(ctx.db, ctx.workspace.id, webhookId, changes);
  return presentWebhook({ ...webhook, ...changes });
}

export async function removeWebhook(ctx: Ctx, webhookId: string): Promise<void> {
  await requireWebhook(ctx, webhookId);
  await deleteWebhook(ctx, webhookId);
}

export async function listDeliveries(ctx: Ctx, webhookId: string, page: Page) {
  await requireWebhook(ctx, webhookId);
  const { rows, pageInfo } = await listDeliveryPage(ctx, webhookId, page);
  return { deliveries: rows.map(presentDelivery), pageInfo };
}

/** A subscription as the workspace file declares it (already validated). */
export interface FileWebhookSpec {
  url: string;
  events: string[];
  secret?: string;
  active?: boolean;
}

/**
 * Converges the workspace file's subscriptions, matched by URL among file-made ones: creates
 * the missing, updates what differs, never deletes. File-made subscriptions see every
 * project. Answers url → webhookId.
 */
export async function convergeFileWebhooks(
  trx: Kysely<DB>, workspaceId: string, now: string, specs: FileWebhookSpec[],
): Promise<Record<string, string>> {
  const byUrl = new Map((await listFileWebhooks(trx, workspaceId)).map((row) => [row.url, row]));
  const ids: Record<string, string> = {};
  for (const spec of specs) {
    const events = JSON.stringify(spec.events);
    const row = byUrl.get(spec.url);
    if (!row) {
      const id = newId('whk');
      await insertWebhook(trx, {
        id, workspace_id: workspaceId, url: spec.url, events, secret: spec.secret ?? newWebhookSecret(), active: spec.active === false ? 0 : 1,
        creator_kind: 'workspace_file', creator_id: null, creator_token_id: null, created_at: now, updated_at: now,
      });
      ids[spec.url] = id;
      continue;
    }
    const changes: Partial<WebhookRow> = {};
    if (row.events !== events) changes.events = events;
    if (spec.secret !== undefined && row.secret !== spec.secret) changes.secret = spec.secret;
    if (spec.active !== undefined && row.active !== (spec.active ? 1 : 0)) changes.active = spec.active ? 1 : 0;
    if (Object.keys(changes).length > 0) await updateWebhook(trx, workspaceId, row.id, { ...changes, updated_at: now });
    ids[spec.url] = row.id;
  }
  return ids;
}
