import { convergeOauthToken, OAT_SECRET_RE } from '../../auth/tokens.service.js';
import { atEntry, fail } from '../errors.js';
import { at, optionalString, readList, readObject, requiredString } from '../fields.js';
import { defineSection } from './section.js';
import { HANDLE_RE } from './users.js';

export interface OauthTokenSpec {
  user: string;
  secret?: string;
}

function parseOauthTokens(raw: unknown, path: string): OauthTokenSpec[] {
  return readList(raw, path).map((item, index) => {
    const where = at(path, index);
    const fields = readObject(item, where, ['user', 'secret']);
    return {
      user: requiredString(fields, 'user', where, { pattern: HANDLE_RE }),
      secret: optionalString(fields, 'secret', where, { pattern: OAT_SECRET_RE }),
    };
  });
}

/** OAuth access tokens approved by human users: one per (user, secret). */
export const oauthTokensSection = defineSection<OauthTokenSpec[]>({
  key: 'oauthTokens',
  parse: parseOauthTokens,
  async apply(trx, ws, tokens, result) {
    if (!tokens) return;
    const users = await trx.selectFrom('users').select(['id', 'handle']).where('workspace_id', '=', ws.id).execute();
    const userIds = new Map(users.map((row) => [row.handle, row.id]));
    for (const [index, token] of tokens.entries()) {
      const where = at('oauthTokens', index);
      const userId = userIds.get(token.user) ?? fail(at(where, 'user'), `unknown user "${token.user}"`);
      result.oauthTokens[token.user] = await atEntry(where, () => convergeOauthToken(trx, ws.id, userId, token.secret, ws.now));
    }
  },
});
