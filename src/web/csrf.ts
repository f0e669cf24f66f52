import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The CSRF token of a session: an HMAC of the session's cookie secret, so it is bound to
 * the session, needs no storage, and showing it in a page reveals nothing of the cookie.
 * Every form posts it; SameSite=Lax already keeps the cookie off another site's POST, and
 * this check holds even where that does not.
 */
export const csrfTokenFor = (sessionSecret: string): string =>
  createHmac('sha256', sessionSecret).update('wsx browser form').digest('base64url');

export function csrfMatches(sessionSecret: string, given: string | undefined): boolean {
  if (given === undefined) return false;
  const expected = Buffer.from(csrfTokenFor(sessionSecret));
  const actual = Buffer.from(given);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
