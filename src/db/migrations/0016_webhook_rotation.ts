import type { Kysely } from 'kysely';

/**
 * Webhook operations a receiver can live with:
 * - `webhooks.previous_secret` / `previous_secret_expires_at`: the secret a rotation
 *   replaced, which still signs (beside the new one) until it expires.
 * - `webhooks.failing_since`: when the current streak of deliveries whose last attempt
 *   failed began (null after a success); `disabled_reason` / `disabled_at`: why and when the
 *   server deactivated the subscription (null when a client did, or while it is active).
 * - `webhook_jobs.requested`: 1 for a ping or a redelivery a client asked for, which is sent
 *   even while the subscription is inactive; `attempt_limit`: the last attempt a
 *   redelivered job may make (null: WSX_WEBHOOK_MAX_ATTEMPTS).
 */
const WEBHOOK_COLUMNS = [
  'previous_secret',
  'previous_secret_expires_at',
  'failing_since',
  'disabled_reason',
  'disabled_at',
] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const column of WEBHOOK_COLUMNS) await db.schema.alterTable('webhooks').addColumn(column, 'text').execute();
  await db.schema
    .alterTable('webhook_jobs')
    .addColumn('requested', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('webhook_jobs').addColumn('attempt_limit', 'integer').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const column of ['attempt_limit', 'requested'])
    await db.schema.alterTable('webhook_jobs').dropColumn(column).execute();
  for (const column of [...WEBHOOK_COLUMNS].reverse())
    await db.schema.alterTable('webhooks').dropColumn(column).execute();
}
