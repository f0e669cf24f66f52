import type { AccessLevel } from '../../core/access-level.js';

/** The scopes a client may ask for; each is an access level of issue 15's credentials. */
export const SCOPES = ['read', 'write'] as const;
export type Scope = (typeof SCOPES)[number];

const isScope = (value: string): value is Scope => (SCOPES as readonly string[]).includes(value);

/**
 * The scopes of a request, in SCOPES order and without repeats, or undefined when one is
 * unknown. Nothing asked for means everything (`read write`), as clients that send no scope
 * expect the server's default.
 */
export function parseScopes(requested: readonly string[] | undefined): Scope[] | undefined {
  const named = (requested ?? []).filter((scope) => scope !== '');
  if (named.length === 0) return [...SCOPES];
  if (!named.every(isScope)) return undefined;
  return SCOPES.filter((scope) => named.includes(scope));
}

/** Stored scopes (space-separated) back to a list; unknown words, which are never written, are dropped. */
export const storedScopes = (text: string): Scope[] => SCOPES.filter((scope) => text.split(' ').includes(scope));

/** The access level of a token with these scopes: `write` may call every operation, else reads only. */
export const accessLevelOf = (scopes: readonly string[]): AccessLevel => (scopes.includes('write') ? 'write' : 'read');
