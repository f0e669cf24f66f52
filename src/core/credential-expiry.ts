/**
 * When a credential stops acting. Kept in the kernel because sign-in, the user directory and
 * webhook fan-out all ask it, and none of them should import another's module for it.
 */

/** Whether an expiry has come at `now` (epoch ms). Compared as instants, never as text. */
export const isExpired = (expiresAt: string | null, now = Date.now()): boolean =>
  expiresAt !== null && Date.parse(expiresAt) <= now;

/**
 * Whether a token still acts at `now`: active and not expired. Every place that asks whether a
 * token may sign in, be assigned work or receive events asks this, so an expired token is
 * the same as a revoked one everywhere.
 */
export const isTokenLive = (token: { active: number; expires_at: string | null }, now = Date.now()): boolean =>
  token.active === 1 && !isExpired(token.expires_at, now);
