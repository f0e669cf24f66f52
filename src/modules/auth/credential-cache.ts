import { LRUCache } from 'lru-cache';
import type { Authenticated } from '../../core/context.js';

/**
 * Recently resolved credentials, so a hot loop of requests does not read the token tables on
 * every call. An entry lives at most `CREDENTIAL_TTL_MS`, which bounds how long another
 * process (the CLI beside the server, another server on the same PostgreSQL) may take to see
 * a revocation or a change of access level; in this process every write to the credential
 * tables empties every cache at once (`forgetCachedCredentials`), so a revocation or a new
 * access level set here applies to the next request.
 * Expiry is checked on every use, cached or not.
 */
export const CREDENTIAL_TTL_MS = 1_000;
const CACHED_CREDENTIALS = 10_000;

interface Entry {
  auth: Authenticated;
  expiresAt: string | null;
  until: number;
}

const liveCaches = new Set<CredentialCache>();

export class CredentialCache {
  private readonly entries = new LRUCache<string, Entry>({ max: CACHED_CREDENTIALS });

  constructor(private readonly ttlMs = CREDENTIAL_TTL_MS) {
    liveCaches.add(this);
  }

  get(secretHash: string, nowMs: number): Entry | undefined {
    const entry = this.entries.get(secretHash);
    return entry && entry.until > nowMs ? entry : undefined;
  }

  set(secretHash: string, auth: Authenticated, expiresAt: string | null, nowMs: number): void {
    this.entries.set(secretHash, { auth, expiresAt, until: nowMs + this.ttlMs });
  }

  clear(): void {
    this.entries.clear();
  }

  /** Stops taking part in process-wide invalidation (the app closed). */
  dispose(): void {
    this.clear();
    liveCaches.delete(this);
  }
}

/** A token, OAuth token or project grant was written: no cache in this process may answer from before. */
export function forgetCachedCredentials(): void {
  for (const cache of liveCaches) cache.clear();
}
