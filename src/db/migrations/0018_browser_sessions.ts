import type { Kysely } from 'kysely';
import { tenantTable } from './helpers.js';

/**
 * Password-less sign-in for the browser pages (src/web):
 * - `login_links`: one-time sign-in links made by `wsx login-link`; only the hash of the
 *   link's secret is kept. A link works once (`used_at`) and until `expires_at` (10 minutes).
 * - `browser_sessions`: the session a used link opens, named by the hash of the `wsx_session`
 *   cookie. It ends at `expires_at` (7 days after sign-in), after 12 hours without a request
 *   (`last_seen_at`), or when signed out (`revoked_at`).
 * Secret hashes are unique, so a lookup by hash is one index probe.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await tenantTable(db, 'login_links')
    .addColumn('secret_hash', 'text', (c) => c.notNull().unique())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .execute();
  await tenantTable(db, 'browser_sessions')
    .addColumn('secret_hash', 'text', (c) => c.notNull().unique())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_seen_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['browser_sessions', 'login_links']) await db.schema.dropTable(table).ifExists().execute();
}
