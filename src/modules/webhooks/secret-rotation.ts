import { nowIso } from '../../core/clock.js';
import type { Ctx } from '../../db/context.js';
import { newWebhookSecret } from '../../events/signer.js';
import { updateWebhook } from './webhooks.repository.js';
import { requireWebhook } from './webhooks.service.js';

/**
 * A new signing secret, answered once. For the overlap that follows, every delivery is
 * signed with both the new and the replaced secret (events/attempts.ts), so a receiver can
 * switch to the new one whenever it likes within it. Rotating again during an overlap
 * replaces the one before: only the secret being replaced keeps signing.
 */

export interface RotatedSecret {
  webhookId: string;
  secret: string;
  /** When the replaced secret stops signing; null when the rotation had no overlap. */
  previousSecretExpiresAt: string | null;
}

export async function rotateSecret(
  ctx: Ctx,
  webhookId: string,
  overlapSeconds: number | undefined,
): Promise<RotatedSecret> {
  const webhook = await requireWebhook(ctx, webhookId);
  const overlapMs = (overlapSeconds ?? ctx.config.webhookSecretOverlapHours * 3600) * 1000;
  const secret = newWebhookSecret();
  const previousSecretExpiresAt = overlapMs > 0 ? nowIso(ctx.nowMs + overlapMs) : null;
  await updateWebhook(ctx.db, ctx.workspace.id, webhookId, {
    secret,
    previous_secret: previousSecretExpiresAt === null ? null : webhook.secret,
    previous_secret_expires_at: previousSecretExpiresAt,
    updated_at: ctx.now,
  });
  return { webhookId, secret, previousSecretExpiresAt };
}
