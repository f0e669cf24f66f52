import { convergeOauthToken, OAT_SECRET_RE } from '../../auth/index.js';
import { atEntry, fail } from '../errors.js';
import { at, optionalBoolean, optionalString, readEntries, requiredString, type EntryFormat } from '../fields.js';
import type { AccessLevel } from '../../../core/access-level.js';
import { optionalAccess, optionalExpiry, strongSecret } from './credential-fields.js';
import { defineListSection } from './section.js';
import { HANDLE_RE } from './users.js';

export interface OauthTokenSpec {
  user: string;
  /** Names one token; without it the entry is about all the user's OAuth tokens. */
  secret?: string;
  active?: boolean;
  /** UTC ISO-8601; omitted keeps the stored expiry. */
  expiresAt?: string;
  /** Like expiresAt: with a secret that token's level, without it every token's of the user. */
  access?: AccessLevel;
}

/** No `unique`: one user may have several entries (one per token, and one about all of them). */
const oauthTokenEntry: EntryFormat<OauthTokenSpec> = {
  keys: ['user', 'secret', 'active', 'expiresAt', 'access'],
  read(fields, where) {
    const user = requiredString(fields, 'user', where, { pattern: HANDLE_RE });
    const secret = optionalString(fields, 'secret', where, { pattern: OAT_SECRET_RE });
    return {
      user,
      secret:
        secret === undefined ? undefined : strongSecret(secret, at(where, 'secret'), `the OAuth token of "${user}"`),
      active: optionalBoolean(fields, 'active', where),
      expiresAt: optionalExpiry(fields, 'expiresAt', where),
      access: optionalAccess(fields, 'access', where),
    };
  },
};

/**
 * OAuth access tokens approved by human users. An entry with a secret is that one token
 * (`active: false` revokes it); one without is about all the user's tokens (`active: false`
 * revokes them all). See convergeOauthToken.
 */
export const oauthTokensSection = defineListSection<OauthTokenSpec>({
  key: 'oauthTokens',
  parse: (raw, path) => readEntries(raw, path, oauthTokenEntry),
  async apply(trx, ws, tokens, result) {
    const users = await trx.selectFrom('users').select(['id', 'handle']).where('workspace_id', '=', ws.id).execute();
    const userIds = new Map(users.map((row) => [row.handle, row.id]));
    for (const [index, token] of tokens.entries()) {
      const where = at('oauthTokens', index);
      const userId = userIds.get(token.user) ?? fail(at(where, 'user'), `unknown user "${token.user}"`);
      const desired = { secret: token.secret, active: token.active, expiresAt: token.expiresAt, access: token.access };
      result.oauthTokens[token.user] = await atEntry(where, () =>
        convergeOauthToken(trx, ws.id, userId, desired, ws.now),
      );
    }
  },
});
