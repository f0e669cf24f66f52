import { randomBytes } from 'node:crypto';

/**
 * The secret of a sign-in link or a session cookie: 256 random bits as 43 base64url
 * characters, safe in a URL path and a cookie value. Only its hash (hashSecret) is stored.
 */
export const newBrowserSecret = (): string => randomBytes(32).toString('base64url');

/** What a secret looks like; anything else is refused before the database is asked. */
export const BROWSER_SECRET_RE = /^[A-Za-z0-9_-]{43}$/;
