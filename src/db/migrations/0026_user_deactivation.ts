import { sql, type Kysely } from 'kysely';

/**
 * What the workspace file says about a person, beyond name and email:
 * - `users.deactivated_at`: set by `active: false` in the users section; a deactivated
 *   person cannot sign in, approve a connector or act through an OAuth token. Null: active.
 * - `users.oauth_access` / `users.oauth_expires_at`: the ceiling a user-level `oauthTokens`
 *   entry (`{ user, access: read }`, `{ user, expiresAt }`) puts on the tokens connectors are
 *   issued for the person, present and future (refreshes included). Null: no ceiling.
 * - `users.email_key`: the email with ASCII letters lower-cased and nothing else changed, the
 *   one form sign-in through an identity provider compares, exactly, so the database and
 *   the server cannot disagree on which characters fold to which (SQL's lower() and
 *   JavaScript's toLowerCase() do, outside ASCII).
 */
const USER_COLUMNS = ['deactivated_at', 'oauth_access', 'oauth_expires_at', 'email_key'] as const;

/** The same fold as src/modules/users/email-key.ts, frozen here as of this migration. */
const emailKey = (email: string): string => email.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const column of USER_COLUMNS) await db.schema.alterTable('users').addColumn(column, 'text').execute();
  const users = await sql<{
    id: string;
    email: string;
  }>`select id, email from users where email is not null`.execute(db);
  for (const user of users.rows)
    await sql`update users set email_key = ${emailKey(user.email)} where id = ${user.id}`.execute(db);
  await db.schema
    .createIndex('users_email_key_idx')
    .on('users')
    .column('email_key')
    .where(sql.ref('email_key'), 'is not', null)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('users_email_key_idx').ifExists().execute();
  for (const column of [...USER_COLUMNS].reverse()) await db.schema.alterTable('users').dropColumn(column).execute();
}
