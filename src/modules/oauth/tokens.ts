import type { Kysely } from 'kysely';
import type { OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { nowIso } from '../../core/clock.js';
import { newId } from '../../core/ids.js';
import type { DB } from '../../db/schema.js';
import type { OauthGrantRow, OauthRefreshTokenRow } from '../../db/tables/oauth.js';
import { forgetCachedCredentials, generateSecret, hashSecret } from '../auth/index.js';
import { underCeiling, type UserStanding } from '../users/index.js';
import { accessLevelOf, type Scope } from './scopes.js';

/**
 * Tokens issued under a grant. Access tokens are `svc_oat_` rows of `oauth_tokens`, the
 * table every route already authenticates against, with the grant's access level and an
 * expiry; refresh tokens (`svc_ort_`) live beside them and are rotated on every use.
 */

export interface TokenLifetimes {
  accessTokenTtlSeconds: number;
  refreshTokenTtlDays: number;
}

const DAY_MS = 24 * 60 * 60_000;

/** The ceiling on the tokens of a grant's person (see src/modules/users/user-standing.ts). */
type Ceiling = Pick<UserStanding, 'oauthAccess' | 'oauthExpiresAt'>;
const NO_CEILING: Ceiling = { oauthAccess: null, oauthExpiresAt: null };
const REFRESH_TOKEN_RE = /^svc_ort_[0-9A-Za-z]{40}$/;

/**
 * A new access token and refresh token for the grant (taken with useLiveGrant in the same
 * transaction), with `granted` scopes (the grant's, or fewer when a refresh asked for fewer)
 * under the person's `ceiling`. Expired tokens of the grant are deleted on the way, so a
 * long-lived connector leaves behind no more than its live tokens and its rotated refresh
 * tokens that have not expired yet.
 */
export async function issueTokens(
  db: Kysely<DB>,
  grant: OauthGrantRow,
  granted: Scope[],
  lifetimes: TokenLifetimes,
  now: number,
  ceiling: Ceiling = NO_CEILING,
): Promise<OAuthTokens> {
  const at = nowIso(now);
  // The person's ceiling (a user-level entry of the workspace file) may cut the token to
  // reading and to an earlier end; the answer says what the token really is.
  const fullTerm = nowIso(now + lifetimes.accessTokenTtlSeconds * 1000);
  const limited = underCeiling({ access: accessLevelOf(granted), expiresAt: fullTerm }, ceiling);
  const scopes: Scope[] = limited.access === 'read' ? ['read'] : granted;
  const expiresAt = limited.expiresAt ?? fullTerm;
  const accessToken = generateSecret('svc_oat_');
  const refreshToken = generateSecret('svc_ort_');
  await db.deleteFrom('oauth_tokens').where('grant_id', '=', grant.id).where('expires_at', '<=', at).execute();
  await db.deleteFrom('oauth_refresh_tokens').where('grant_id', '=', grant.id).where('expires_at', '<=', at).execute();
  // A new secret cannot be in any credential cache, so no cache is emptied for it.
  await db
    .insertInto('oauth_tokens')
    .values({
      id: newId('oat', now),
      workspace_id: grant.workspace_id,
      user_id: grant.user_id,
      secret_hash: hashSecret(accessToken),
      active: 1,
      expires_at: expiresAt,
      access: limited.access,
      grant_id: grant.id,
      client_id: grant.client_id,
      created_at: at,
      updated_at: at,
    })
    .execute();
  await db
    .insertInto('oauth_refresh_tokens')
    .values({
      id: newId('orf', now),
      workspace_id: grant.workspace_id,
      grant_id: grant.id,
      client_id: grant.client_id,
      secret_hash: hashSecret(refreshToken),
      created_at: at,
      expires_at: nowIso(now + lifetimes.refreshTokenTtlDays * DAY_MS),
      rotated_at: null,
    })
    .execute();
  return {
    access_token: accessToken,
    token_type: 'Bearer',
    expires_in: Math.max(0, Math.floor((Date.parse(expiresAt) - now) / 1000)),
    scope: scopes.join(' '),
    refresh_token: refreshToken,
  };
}

/** The refresh token's row while it has not expired (rotated or not), or undefined. */
export async function findRefreshToken(
  db: Kysely<DB>,
  secret: string,
  now: number,
): Promise<OauthRefreshTokenRow | undefined> {
  if (!REFRESH_TOKEN_RE.test(secret)) return undefined;
  return db
    .selectFrom('oauth_refresh_tokens')
    .selectAll()
    .where('secret_hash', '=', hashSecret(secret))
    .where('expires_at', '>', nowIso(now))
    .executeTakeFirst();
}

/** Marks the refresh token used; of two refreshes racing with one token exactly one gets true. */
export async function rotateRefreshToken(db: Kysely<DB>, row: OauthRefreshTokenRow, now: number): Promise<boolean> {
  const result = await db
    .updateTable('oauth_refresh_tokens')
    .set({ rotated_at: nowIso(now) })
    .where('id', '=', row.id)
    .where('rotated_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** The access token `secret` issued to `clientId`, while it is active. */
export const findClientAccessToken = (db: Kysely<DB>, secret: string, clientId: string) =>
  db
    .selectFrom('oauth_tokens')
    .select(['id', 'grant_id', 'expires_at', 'access'])
    .where('secret_hash', '=', hashSecret(secret))
    .where('client_id', '=', clientId)
    .where('active', '=', 1)
    .executeTakeFirst();

/** Deactivates one access token; this process's credential caches are emptied after the write. */
export async function deactivateAccessToken(db: Kysely<DB>, tokenId: string, now: number): Promise<void> {
  await db
    .updateTable('oauth_tokens')
    .set({ active: 0, updated_at: nowIso(now) })
    .where('id', '=', tokenId)
    .execute();
  forgetCachedCredentials();
}
