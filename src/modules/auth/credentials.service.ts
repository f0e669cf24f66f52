import type { Kysely } from 'kysely';
import { tokenIdentity, type Principal, type ProjectAccess, type WorkspaceRef } from '../../core/context.js';
import type { DB } from '../../db/schema.js';
import { findActiveApiToken, findActiveOauthToken, listGrantedProjectIds } from './credentials.repository.js';
import { isExpired } from '../../core/credential-expiry.js';
import { hashSecret, looksLikeCredential } from './secrets.js';

export interface Authenticated {
  workspace: WorkspaceRef;
  principal: Principal;
  access: ProjectAccess;
  /** Stable per credential: the scope of rate limits and idempotency keys. */
  credentialId: string;
}

/**
 * Resolves a presented secret to its workspace, principal and project access, or null.
 * Every failure (malformed, unknown, revoked, inactive, expired) is the same null, so
 * callers cannot tell them apart. No cache: a revoked or expired token stops on its next
 * request.
 */
export async function authenticate(db: Kysely<DB>, secret: string | undefined): Promise<Authenticated | null> {
  if (!secret || !looksLikeCredential(secret)) return null;
  const hash = hashSecret(secret);
  if (secret.startsWith('svc_pat_')) {
    const token = await findActiveApiToken(db, hash);
    if (!token || isExpired(token.expires_at)) return null;
    const all = token.all_projects === 1;
    return {
      workspace: { id: token.workspace_id, slug: token.slug, name: token.workspace_name },
      principal: { kind: 'api_token', id: tokenIdentity(token.name), tokenId: token.id, tokenName: token.name },
      access: { all, tokenId: token.id, granted: new Set(all ? [] : await listGrantedProjectIds(db, token.id)) },
      credentialId: token.id,
    };
  }
  const oauth = await findActiveOauthToken(db, hash);
  if (!oauth || isExpired(oauth.expires_at)) return null;
  return {
    workspace: { id: oauth.workspace_id, slug: oauth.slug, name: oauth.workspace_name },
    principal: { kind: 'user', id: oauth.user_id, userId: oauth.user_id, oauthTokenId: oauth.id },
    access: { all: true, tokenId: null, granted: new Set() },
    credentialId: oauth.id,
  };
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
