import { EXPIRY_FORMAT, parseExpiry } from '../../auth/expiry.js';
import { fail } from '../errors.js';
import { at, type Fields } from '../fields.js';

/** Readers for the fields both credential sections share (`tokens`, `oauthTokens`). */

/** `expiresAt`: ISO 8601 with an offset, normalised to UTC; past instants are allowed (the file outlives them). */
export function optionalExpiry(fields: Fields, key: string, path: string): string | undefined {
  const value = fields[key];
  if (value === undefined || value === null) return undefined;
  return parseExpiry(value) ?? fail(at(path, key), `must be ${EXPIRY_FORMAT}`);
}
