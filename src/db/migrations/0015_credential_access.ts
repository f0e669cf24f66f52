import type { Kysely } from 'kysely';

/**
 * The access level of both kinds of credential: `write` (every operation, as before) or
 * `read` (reads only; every write answers TOKEN_READ_ONLY). Existing credentials keep
 * writing, so the default is `write`.
 */
const TABLES = ['api_tokens', 'oauth_tokens'] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of TABLES)
    await db.schema
      .alterTable(table)
      .addColumn('access', 'text', (c) => c.notNull().defaultTo('write'))
      .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [...TABLES].reverse()) await db.schema.alterTable(table).dropColumn('access').execute();
}
