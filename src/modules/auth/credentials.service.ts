import type { Kysely } from 'kysely';
import { tokenIdentity, type Authenticated } from '../../core/context.js';
import type { DB } from '../../db/schema.js';
import { findActiveApiToken, findActiveOauthToken, listGrantedProjectIds } from './credentials.repository.js';
import { isExpired } from '../../core/credential-expiry.js';
import type { CredentialCache } from './credential-cache.js';
import { underCeiling } from '../users/index.js';
import { hashSecret, looksLikeCredential } from './secrets.js';

/**
 * Resolves a presented secret to its workspace, principal, project access and access level
 * (read or write), or null. Every failure (malformed, unknown, revoked, inactive, expired,
 * its person deactivated) is the same null, so callers cannot tell them apart. A resolved credential may come from
 * `cache` (see credential-cache.ts for how revocation, and a change of access level, still
 * take effect); expiry is checked every time.
 */
export async function authenticate(
  db: Kysely<DB>,
  secret: string | undefined,
  cache?: CredentialCache,
): Promise<Authenticated | null> {
  if (!secret || !looksLikeCredential(secret)) return null;
  const hash = hashSecret(secret);
  const nowMs = Date.now();
  const cached = cache?.get(hash, nowMs);
  if (cached) return isExpired(cached.expiresAt, nowMs) ? null : cached.auth;
  const found = await lookUp(db, secret, hash);
  if (!found || isExpired(found.expiresAt, nowMs)) return null;
  cache?.set(hash, found.auth, found.expiresAt, nowMs);
  return found.auth;
}

/**
 * The caller `cache` already holds for `secret`, unexpired; undefined for anything else
 * (not cached, malformed, expired), which `authenticate` then decides. Synchronous, so the
 * credential hook passes a cached caller on without a promise.
 */
export function cachedAuthentication(secret: string | undefined, cache: CredentialCache): Authenticated | undefined {
  if (!secret || !looksLikeCredential(secret)) return undefined;
  const nowMs = Date.now();
  const cached = cache.get(hashSecret(secret), nowMs);
  return cached && !isExpired(cached.expiresAt, nowMs) ? cached.auth : undefined;
}

async function lookUp(
  db: Kysely<DB>,
  secret: string,
  hash: string,
): Promise<{ auth: Authenticated; expiresAt: string | null } | null> {
  if (secret.startsWith('svc_pat_')) {
    const token = await findActiveApiToken(db, hash);
    if (!token) return null;
    const all = token.all_projects === 1;
    const auth: Authenticated = {
      workspace: { id: token.workspace_id, slug: token.slug, name: token.workspace_name },
      principal: { kind: 'api_token', id: tokenIdentity(token.name), tokenId: token.id, tokenName: token.name },
      access: { all, tokenId: token.id, granted: new Set(all ? [] : await listGrantedProjectIds(db, token.id)) },
      credentialId: token.id,
      accessLevel: token.access,
    };
    return { auth, expiresAt: token.expires_at };
  }
  const oauth = await findActiveOauthToken(db, hash);
  if (!oauth) return null;
  // A connector's token answers to the ceiling the workspace file keeps on its person (a
  // user-level oauthTokens entry); the file's own tokens carry the entry's values themselves.
  const effective =
    oauth.grant_id === null
      ? { access: oauth.access, expiresAt: oauth.expires_at }
      : underCeiling(
          { access: oauth.access, expiresAt: oauth.expires_at },
          { oauthAccess: oauth.oauth_access, oauthExpiresAt: oauth.oauth_expires_at },
        );
  const auth: Authenticated = {
    workspace: { id: oauth.workspace_id, slug: oauth.slug, name: oauth.workspace_name },
    principal: { kind: 'user', id: oauth.user_id, userId: oauth.user_id, oauthTokenId: oauth.id },
    access: { all: true, tokenId: null, granted: new Set() },
    // A connector's access tokens follow one another under its grant (each refresh issues a
    // new one): the grant is the credential, so a retry after a refresh replays its
    // Idempotency-Key and all of them share one rate budget. A token of the workspace file
    // has no grant and is its own credential.
    credentialId: oauth.grant_id ?? oauth.id,
    accessLevel: effective.access,
  };
  return { auth, expiresAt: effective.expiresAt };
}

/** The three accepted header forms: Bearer, Token, X-API-Key. */
export function credentialFromHeaders(headers: Record<string, string | string[] | undefined>): string | undefined {
  const authorization = headers.authorization;
  if (typeof authorization === 'string') {
    const match = /^(Bearer|Token)\s+(\S+)\s*$/i.exec(authorization);
    return match ? match[2] : undefined;
  }
  const apiKey = headers['x-api-key'];
  return typeof apiKey === 'string' ? apiKey.trim() : undefined;
}
