import type { AccessLevel } from '../../../core/access-level.js';
import { ACCESS_LEVELS, EXPIRY_FORMAT, parseExpiry, secretWeakness } from '../../auth/index.js';
import { fail } from '../errors.js';
import { at, type Fields } from '../fields.js';

/** Readers for the fields both credential sections share (`tokens`, `oauthTokens`). */

/** `expiresAt`: ISO 8601 with an offset, normalised to UTC; past instants are allowed (the file outlives them). */
export function optionalExpiry(fields: Fields, key: string, path: string): string | undefined {
  const value = fields[key];
  if (value === undefined || value === null) return undefined;
  return parseExpiry(value) ?? fail(at(path, key), `must be ${EXPIRY_FORMAT}`);
}

/** A secret the operator chose must pass the strength rule (secrets.ts); `owner` names the credential. */
export function strongSecret(secret: string, path: string, owner: string): string {
  const weakness = secretWeakness(secret);
  if (weakness) fail(path, `too weak for ${owner}: ${weakness}. Leave secret out to have a strong one generated.`);
  return secret;
}

/** `access`: `read` or `write`; omitted keeps the stored level (a new credential writes). */
export function optionalAccess(fields: Fields, key: string, path: string): AccessLevel | undefined {
  const value = fields[key];
  if (value === undefined || value === null) return undefined;
  if (ACCESS_LEVELS.includes(value as AccessLevel)) return value as AccessLevel;
  return fail(at(path, key), `must be ${ACCESS_LEVELS.join(' or ')} (got ${JSON.stringify(value)})`);
}
