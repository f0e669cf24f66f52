import type { FetchedDocument } from './client-document-fetch.js';

/**
 * How long a fetched client metadata document is used before it is fetched again, from its
 * HTTP caching headers (RFC 9111): `Cache-Control: no-store` or `no-cache` means not at all,
 * `max-age` is the lifetime, else `Expires` (against the answer's `Date`); an invalid
 * `Expires` means already expired. Without either, a few minutes. Never longer than
 * MAX_DOCUMENT_LIFETIME_MS, so a client that changes its document (a redirect URI taken
 * away) is read again within that time whatever its headers said.
 */

/** The lifetime of a document whose answer says nothing about caching. */
export const DEFAULT_DOCUMENT_LIFETIME_MS = 5 * 60_000;
/**
 * The longest a document is used: half the day after which a client nobody approved loses its
 * row (clients.ts), so a document still in use always has its row.
 */
export const MAX_DOCUMENT_LIFETIME_MS = 12 * 60 * 60_000;

const MAX_AGE_RE = /^max-age\s*=\s*"?(\d+)"?$/;

const clamp = (ms: number): number => Math.min(Math.max(ms, 0), MAX_DOCUMENT_LIFETIME_MS);

/** Milliseconds to keep the document fetched at `now` with these headers; 0: not kept. */
export function documentLifetimeMs(headers: FetchedDocument['headers'], now: number): number {
  if (headers.cacheControl !== undefined) {
    const directives = headers.cacheControl
      .toLowerCase()
      .split(',')
      .map((directive) => directive.trim());
    const names = directives.map((directive) => directive.split('=', 1)[0].trim());
    if (names.includes('no-store') || names.includes('no-cache')) return 0;
    for (const directive of directives) {
      const maxAge = MAX_AGE_RE.exec(directive);
      if (maxAge) return clamp(Number(maxAge[1]) * 1000);
    }
  }
  if (headers.expires !== undefined) {
    const expires = Date.parse(headers.expires);
    if (Number.isNaN(expires)) return 0;
    const date = headers.date === undefined ? Number.NaN : Date.parse(headers.date);
    return clamp(expires - (Number.isNaN(date) ? now : date));
  }
  return DEFAULT_DOCUMENT_LIFETIME_MS;
}
