import type { Kysely } from 'kysely';

/**
 * Optional expiry on both kinds of credential: an ISO-8601 UTC instant, or null for none.
 * Authentication refuses a credential at or past it, like a revoked one.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('api_tokens').addColumn('expires_at', 'text').execute();
  await db.schema.alterTable('oauth_tokens').addColumn('expires_at', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('oauth_tokens').dropColumn('expires_at').execute();
  await db.schema.alterTable('api_tokens').dropColumn('expires_at').execute();
}
