import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { nowIso } from '../../core/clock.js';
import type { DB } from '../../db/schema.js';
import type { OauthCodeRow } from '../../db/tables/oauth.js';
import { hashSecret } from '../auth/index.js';

/** An authorization code is exchanged within a minute or never. */
const CODE_TTL_MS = 60_000;

/** The longest code looked up: ours are 43 characters; anything much longer is not one. */
const MAX_CODE_LENGTH = 128;

/**
 * Stores a new code for a grant and answers it (only its hash is kept). Expired codes are
 * pruned by the background workers (cleanup.ts).
 */
export async function issueCode(
  db: Kysely<DB>,
  code: Omit<OauthCodeRow, 'secret_hash' | 'created_at' | 'expires_at' | 'used_at'>,
  now: number,
): Promise<string> {
  const secret = randomBytes(32).toString('base64url');
  await db
    .insertInto('oauth_codes')
    .values({
      ...code,
      secret_hash: hashSecret(secret),
      created_at: nowIso(now),
      expires_at: nowIso(now + CODE_TTL_MS),
      used_at: null,
    })
    .execute();
  return secret;
}

/** The code's row while it has not expired (used or not), or undefined. */
export async function findCode(db: Kysely<DB>, code: string, now: number): Promise<OauthCodeRow | undefined> {
  if (code.length > MAX_CODE_LENGTH) return undefined;
  return db
    .selectFrom('oauth_codes')
    .selectAll()
    .where('secret_hash', '=', hashSecret(code))
    .where('expires_at', '>', nowIso(now))
    .executeTakeFirst();
}

/**
 * Marks the code used. The conditional update is what spends it, so of two exchanges racing
 * with one code exactly one gets true.
 */
export async function spendCode(db: Kysely<DB>, row: OauthCodeRow, now: number): Promise<boolean> {
  const result = await db
    .updateTable('oauth_codes')
    .set({ used_at: nowIso(now) })
    .where('secret_hash', '=', row.secret_hash)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
