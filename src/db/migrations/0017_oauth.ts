import type { Kysely } from 'kysely';
import { tenantTable } from './helpers.js';

/**
 * wsx as an OAuth 2.1 authorization server for its own API (src/modules/oauth):
 * - `oauth_clients`: clients that registered themselves (RFC 7591), installation-wide.
 * - `oauth_authorization_requests`: authorize requests waiting for the consent page (10 min).
 * - `oauth_grants`: one person's approval of one client in one workspace, with its scopes;
 *   revoking it ends every token issued under it.
 * - `oauth_codes`: authorization codes (60 s, single use), by hash.
 * - `oauth_refresh_tokens`: refresh tokens, by hash, rotated on every use; a rotated one
 *   is kept until it expires so that presenting it again is recognised (and revokes the grant).
 * - `oauth_tokens.grant_id` / `client_id`: the grant and client an access token was issued
 *   under; null for the tokens the workspace file names.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('oauth_clients')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('client_name', 'text')
    .addColumn('metadata', 'text', (c) => c.notNull())
    .addColumn('confidential', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('oauth_authorization_requests')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('redirect_uri', 'text', (c) => c.notNull())
    .addColumn('code_challenge', 'text', (c) => c.notNull())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('state', 'text')
    .addColumn('resource', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('oauth_requests_expiry_idx')
    .on('oauth_authorization_requests')
    .column('expires_at')
    .execute();

  await tenantTable(db, 'oauth_grants')
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('resource', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('last_used_at', 'text')
    .addColumn('revoked_at', 'text')
    .execute();
  await db.schema
    .createIndex('oauth_grants_holder_idx')
    .on('oauth_grants')
    .columns(['workspace_id', 'user_id', 'client_id'])
    .execute();
  await db.schema.createIndex('oauth_grants_client_idx').on('oauth_grants').column('client_id').execute();

  await db.schema
    .createTable('oauth_codes')
    .addColumn('secret_hash', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('grant_id', 'text', (c) => c.notNull())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('redirect_uri', 'text', (c) => c.notNull())
    .addColumn('code_challenge', 'text', (c) => c.notNull())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('resource', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .execute();
  await db.schema.createIndex('oauth_codes_expiry_idx').on('oauth_codes').column('expires_at').execute();

  await tenantTable(db, 'oauth_refresh_tokens')
    .addColumn('grant_id', 'text', (c) => c.notNull())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('secret_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('rotated_at', 'text')
    .execute();
  await db.schema
    .createIndex('oauth_refresh_grant_idx')
    .on('oauth_refresh_tokens')
    .columns(['grant_id', 'expires_at'])
    .execute();

  await db.schema.alterTable('oauth_tokens').addColumn('grant_id', 'text').execute();
  await db.schema.alterTable('oauth_tokens').addColumn('client_id', 'text').execute();
  await db.schema.createIndex('oauth_tokens_grant_idx').on('oauth_tokens').column('grant_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('oauth_tokens_grant_idx').ifExists().execute();
  await db.schema.alterTable('oauth_tokens').dropColumn('client_id').execute();
  await db.schema.alterTable('oauth_tokens').dropColumn('grant_id').execute();
  for (const table of [
    'oauth_refresh_tokens',
    'oauth_codes',
    'oauth_grants',
    'oauth_authorization_requests',
    'oauth_clients',
  ])
    await db.schema.dropTable(table).ifExists().execute();
}
