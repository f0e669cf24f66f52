import type { AppConfig } from '../../config.js';
import { nowIso } from '../../core/clock.js';
import type { Database } from '../../db/database.js';
import type { EventAudience } from '../../events/audience.js';
import type { FailureStreak } from '../../events/dispatch.repository.js';
import { appendEvent, SYSTEM_ACTOR } from '../../events/outbox.js';
import { presentWebhook } from './webhooks.presenter.js';
import { deactivateFailing } from './webhooks.repository.js';

/**
 * A receiver that keeps failing is switched off: once every delivery of a subscription has
 * failed its last attempt for WSX_WEBHOOK_DISABLE_AFTER_HOURS (counted from the first such
 * failure after its last success), the subscription is set inactive with `disabledReason`,
 * and a `webhook.disabled` event tells the workspace's other subscriptions.
 */

const HOUR_MS = 3_600_000;

/**
 * Who gets `webhook.disabled`: subscriptions (and feed readers) that may manage any
 * subscription of the workspace, because the event shows one whatever its creator
 * (docs/webhooks.md, "Subscribing": to other credentials a subscription does not exist). No project
 * has the id "*", so only a reader of every project passes the requirement.
 */
const MANAGERS_OF_EVERY_SUBSCRIPTION: EventAudience = { requires: ['*'] };

/** Called after a job's last attempt failed; `nowMs` is the dispatcher's clock (tests move it). */
export async function disableIfFailingTooLong(
  database: Database,
  config: AppConfig,
  webhookId: string,
  streak: FailureStreak,
  nowMs: number,
): Promise<void> {
  const span = config.webhookDisableAfterHours * HOUR_MS;
  if (span === 0 || streak.active !== 1 || streak.failing_since === null) return;
  if (nowMs - Date.parse(streak.failing_since) < span) return;
  const failingSince = streak.failing_since;
  await database.write(streak.workspace_id, async (trx, writeMs) => {
    const now = nowIso(writeMs);
    const row = await deactivateFailing(trx, webhookId, failingSince, now);
    // Already off, re-activated or recovered meanwhile: nothing to tell.
    if (!row) return;
    await appendEvent(
      { db: trx, dialect: database.dialect },
      { workspaceId: row.workspace_id, actor: SYSTEM_ACTOR, nowMs: writeMs, now },
      {
        type: 'webhook.disabled',
        data: { webhook: presentWebhook(row) },
        projectId: null,
        audience: MANAGERS_OF_EVERY_SUBSCRIPTION,
      },
    );
  });
}
