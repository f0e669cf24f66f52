import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import { canonicalJson } from '../../core/canonical-json.js';
import { ApiError } from '../../core/errors.js';
import type { DB } from '../../db/schema.js';
import { completeRecord, deleteExpired, deleteRecord, findRecord, insertClaim, type IdempotencyScope } from './idempotency.repository.js';

const KEY_RE = /^[\x21-\x7e]{1,255}$/;
/** A claim older than this is taken to belong to a crashed request and may be retaken. */
const STALE_CLAIM_MS = 5 * 60_000;

export function assertValidKey(key: string): void {
  if (!KEY_RE.test(key)) {
    throw new ApiError('VALIDATION_FAILED', { field: 'Idempotency-Key' }, { message: 'Idempotency-Key must be 1–255 visible ASCII characters.' });
  }
}

export const requestFingerprint = (method: string, path: string, body: unknown): string =>
  createHash('sha256').update(`${method} ${path}\n${canonicalJson(body ?? null)}`).digest('hex');

export type ClaimOutcome =
  | { kind: 'claimed' }
  | { kind: 'replay'; status: number; body: unknown };

/**
 * Claims the key for this request (committed at once, so concurrent duplicates see it), or
 * answers the stored result, or refuses: 422 for a different request, 409 while running.
 */
export async function claimKey(db: Kysely<DB>, scope: IdempotencyScope, fingerprint: string, nowMs: number, ttlHours: number): Promise<ClaimOutcome> {
  const now = new Date(nowMs).toISOString();
  for (let attempt = 0; attempt < 3; attempt++) {
    const claimed = await insertClaim(db, {
      ...scope, request_hash: fingerprint, state: 'running', response_status: null, response_body: null,
      created_at: now, expires_at: new Date(nowMs + ttlHours * 3_600_000).toISOString(),
    });
    if (claimed) return { kind: 'claimed' };
    const existing = await findRecord(db, scope);
    if (!existing) continue;
    const stale = existing.state === 'running' && Date.parse(existing.created_at) < nowMs - STALE_CLAIM_MS;
    if (existing.expires_at < now || stale) {
      await deleteRecord(db, scope);
      continue;
    }
    if (existing.request_hash !== fingerprint) throw new ApiError('IDEMPOTENCY_KEY_REUSED', { idempotencyKey: scope.key });
    if (existing.state === 'running') {
      throw new ApiError('IDEMPOTENCY_KEY_IN_USE', { idempotencyKey: scope.key }, { headers: { 'Retry-After': '1' } });
    }
    return { kind: 'replay', status: existing.response_status ?? 200, body: existing.response_body === null ? undefined : JSON.parse(existing.response_body) };
  }
  throw new ApiError('IDEMPOTENCY_KEY_IN_USE', { idempotencyKey: scope.key }, { headers: { 'Retry-After': '1' } });
}

/** Stores the 2xx result; called inside the operation's transaction so both commit together. */
export const completeKey = (trx: Kysely<DB>, scope: IdempotencyScope, status: number, body: unknown) =>
  completeRecord(trx, scope, status, JSON.stringify(body ?? null));

/** Errors are not kept: a corrected retry with the same key runs. */
export const releaseKey = (db: Kysely<DB>, scope: IdempotencyScope) => deleteRecord(db, scope);

export const purgeExpiredKeys = (db: Kysely<DB>, nowMs: number) => deleteExpired(db, new Date(nowMs).toISOString());
