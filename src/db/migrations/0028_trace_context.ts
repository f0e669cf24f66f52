import type { Kysely } from 'kysely';

/**
 * W3C trace context for webhook deliveries:
 * - `outbox_events.traceparent`: the `traceparent` the event's deliveries send (the span of
 *   the request whose write recorded it); null when that request continued no trace.
 * - `webhook_jobs.traceparent`: the same, copied by fan-out (a ping's set directly), so a
 *   claim reads it with its job and no claim reads the outbox for it.
 */
const TABLES = ['outbox_events', 'webhook_jobs'] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of TABLES) await db.schema.alterTable(table).addColumn('traceparent', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [...TABLES].reverse()) await db.schema.alterTable(table).dropColumn('traceparent').execute();
}
