import type { Kysely } from 'kysely';
import type { Ctx } from '../../db/context.js';
import { ApiError } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import { hasOwn, isHttpUrl } from '../../core/values.js';
import type { DB } from '../../db/schema.js';
import type { WebhookRow } from '../../db/tables/webhooks.js';
import {
  ALLOW_PRIVATE_HINT,
  allowedWhenPrivate,
  refusedAddressOf,
  resolveReceiver,
  type ResolvedReceiver,
} from '../../events/receiver-address.js';
import { newWebhookSecret } from '../../events/signer.js';
import { checkEventFilter } from './event-filter.js';
import { presentDelivery, presentWebhook, type WebhookView } from './webhooks.presenter.js';
import {
  countWebhooks,
  deleteWebhook,
  findWebhook,
  insertWebhook,
  listDeliveryPage,
  listFileWebhooks,
  listWebhookPage,
  lockWorkspaceSubscriptions,
  updateWebhook,
} from './webhooks.repository.js';

/** Subscriptions per workspace, whoever made them (each one is a delivery stream to keep fair). */
export const WEBHOOK_LIMIT = 25;

interface Page {
  limit?: number;
  cursor?: string;
}

export interface WebhookInput {
  url?: unknown;
  events?: unknown;
  active?: boolean;
}

/**
 * The receiver's DNS answer, looked up before the write transaction opens (the operation's
 * `prepare` step): a lookup can take seconds, and the transaction holds the write lock.
 */
export async function prepareReceiver(input: WebhookInput | undefined): Promise<ResolvedReceiver | undefined> {
  return isHttpUrl(input?.url) ? resolveReceiver(input.url) : undefined;
}

/**
 * An absolute http(s) URL whose host is a global unicast address (or, when allowed, a
 * loopback or private one). `resolved` is the host's DNS answer from prepareReceiver; a
 * caller without one resolves here.
 */
async function validUrl(ctx: Ctx, value: unknown, resolved: ResolvedReceiver | undefined): Promise<string> {
  if (!isHttpUrl(value))
    throw new ApiError(
      'INVALID_WEBHOOK_URL',
      { field: 'url' },
      { message: 'url must be an absolute http or https URL of at most 2,048 characters.' },
    );
  const addresses = resolved?.url === value ? resolved.addresses : undefined;
  const refused = await refusedAddressOf(new URL(value), ctx.config.webhookAllowPrivate, addresses);
  if (refused) {
    throw new ApiError(
      'INVALID_WEBHOOK_URL',
      { field: 'url', address: refused.address },
      {
        message: `The receiver address ${refused.address} is not a public unicast address (${refused.refusedAs}).`,
        // A loopback or private receiver is refused only by the server's setting: name it.
        ...(allowedWhenPrivate(refused.refusedAs) ? { suggestion: ALLOW_PRIVATE_HINT } : {}),
      },
    );
  }
  return value;
}

function validEvents(value: unknown): string[] {
  const check = checkEventFilter(value);
  if (!check.ok)
    throw new ApiError(
      'VALIDATION_FAILED',
      { field: check.index === null ? 'events' : `events.${check.index}` },
      { message: check.problem },
    );
  return check.events;
}

export async function requireWebhook(ctx: Ctx, webhookId: string): Promise<WebhookRow> {
  const webhook = await findWebhook(ctx, webhookId);
  if (!webhook) throw new ApiError('WEBHOOK_NOT_FOUND', { webhookId });
  return webhook;
}

/** The creator decides which projects' events the subscription receives, and who may manage it. */
function creatorOf(ctx: Ctx): Pick<WebhookRow, 'creator_kind' | 'creator_id' | 'creator_token_id'> {
  return ctx.principal.kind === 'api_token'
    ? { creator_kind: 'api_token', creator_id: ctx.principal.id, creator_token_id: ctx.principal.tokenId }
    : { creator_kind: 'user', creator_id: ctx.principal.userId, creator_token_id: null };
}

/** What the server keeps beside what clients set (a rotation's previous secret, failures): nothing, for a new subscription. */
const NO_HISTORY = {
  previous_secret: null,
  previous_secret_expires_at: null,
  failing_since: null,
  disabled_reason: null,
  disabled_at: null,
} as const;

/**
 * Setting `active`. Turning an inactive subscription on clears why the server turned it
 * off and its failure streak, so it gets the whole WSX_WEBHOOK_DISABLE_AFTER_HOURS again.
 */
function activation(row: WebhookRow, active: boolean): Partial<WebhookRow> {
  if (!active || row.active === 1) return { active: active ? 1 : 0 };
  return { active: 1, failing_since: null, disabled_reason: null, disabled_at: null };
}

/** Who sets a URL: delivery uses a URL only while its setter could still set it (see events/attempts.ts). */
const urlSetterOf = (ctx: Ctx): string | null => (ctx.principal.kind === 'api_token' ? ctx.principal.tokenId : null);

export async function listWebhooks(ctx: Ctx, page: Page) {
  const { rows, pageInfo } = await listWebhookPage(ctx, page);
  return { webhooks: rows.map(presentWebhook), pageInfo };
}

export async function getWebhook(ctx: Ctx, webhookId: string): Promise<WebhookView> {
  return presentWebhook(await requireWebhook(ctx, webhookId));
}

export async function createWebhook(
  ctx: Ctx,
  input: WebhookInput,
  resolved?: ResolvedReceiver,
): Promise<WebhookView & { secret: string }> {
  const url = await validUrl(ctx, input.url, resolved);
  const events = validEvents(input.events);
  await lockWorkspaceSubscriptions(ctx.db, ctx.workspace.id);
  if ((await countWebhooks(ctx.db, ctx.workspace.id)) >= WEBHOOK_LIMIT)
    throw new ApiError('WEBHOOK_LIMIT_REACHED', { limit: WEBHOOK_LIMIT });
  const row: WebhookRow = {
    id: newId('whk', ctx.nowMs),
    workspace_id: ctx.workspace.id,
    url,
    events: JSON.stringify(events),
    secret: newWebhookSecret(),
    active: input.active === false ? 0 : 1,
    ...NO_HISTORY,
    ...creatorOf(ctx),
    url_set_by_token_id: urlSetterOf(ctx),
    created_at: ctx.now,
    updated_at: ctx.now,
    version: 1,
  };
  await insertWebhook(ctx.db, row);
  return { ...presentWebhook(row), secret: row.secret };
}

export async function updateWebhookById(
  ctx: Ctx,
  webhookId: string,
  input: WebhookInput,
  resolved?: ResolvedReceiver,
): Promise<WebhookView> {
  const webhook = await requireWebhook(ctx, webhookId);
  if (!['url', 'events', 'active'].some((field) => hasOwn(input, field))) {
    throw new ApiError('UNSUPPORTED_ACTION', { webhookId }, { message: 'The update names no field to change.' });
  }
  const changes: Partial<WebhookRow> = { updated_at: ctx.now };
  if (hasOwn(input, 'url')) {
    changes.url = await validUrl(ctx, input.url, resolved);
    changes.url_set_by_token_id = urlSetterOf(ctx);
  }
  if (hasOwn(input, 'events')) changes.events = JSON.stringify(validEvents(input.events));
  if (hasOwn(input, 'active')) Object.assign(changes, activation(webhook, input.active === true));
  const version = await updateWebhook(ctx.db, ctx.workspace.id, webhookId, changes);
  return presentWebhook({ ...webhook, ...changes, version });
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
 * project. Answers url → webhookId. A new one past the workspace's cap throws
 * WEBHOOK_LIMIT_REACHED with the index of the first entry that does not fit.
 */
export async function convergeFileWebhooks(
  trx: Kysely<DB>,
  workspaceId: string,
  now: string,
  specs: FileWebhookSpec[],
): Promise<Record<string, string>> {
  const byUrl = new Map((await listFileWebhooks(trx, workspaceId)).map((row) => [row.url, row]));
  const ids: Record<string, string> = {};
  let count: number | undefined;
  for (const [index, spec] of specs.entries()) {
    const events = JSON.stringify(spec.events);
    const row = byUrl.get(spec.url);
    if (!row) {
      if (count === undefined) {
        await lockWorkspaceSubscriptions(trx, workspaceId);
        count = await countWebhooks(trx, workspaceId);
      }
      if (count >= WEBHOOK_LIMIT)
        throw new ApiError('WEBHOOK_LIMIT_REACHED', { limit: WEBHOOK_LIMIT, index, existing: count });
      count += 1;
      const id = newId('whk');
      await insertWebhook(trx, {
        id,
        workspace_id: workspaceId,
        url: spec.url,
        events,
        secret: spec.secret ?? newWebhookSecret(),
        active: spec.active === false ? 0 : 1,
        ...NO_HISTORY,
        creator_kind: 'workspace_file',
        creator_id: null,
        creator_token_id: null,
        url_set_by_token_id: null,
        created_at: now,
        updated_at: now,
        version: 1,
      });
      ids[spec.url] = id;
      continue;
    }
    const changes: Partial<WebhookRow> = {};
    if (row.events !== events) changes.events = events;
    if (spec.secret !== undefined && row.secret !== spec.secret) changes.secret = spec.secret;
    if (spec.active !== undefined && row.active !== (spec.active ? 1 : 0))
      Object.assign(changes, activation(row, spec.active));
    if (Object.keys(changes).length > 0) await updateWebhook(trx, workspaceId, row.id, { ...changes, updated_at: now });
    ids[spec.url] = row.id;
  }
  return ids;
}
