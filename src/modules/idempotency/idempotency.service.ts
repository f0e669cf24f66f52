import { hash } from 'node:crypto';
import type { Kysely } from 'kysely';
import { canonicalJson } from '../../core/canonical-json.js';
import { nowIso } from '../../core/clock.js';
import { ApiError } from '../../core/errors.js';
import type { Database } from '../../db/database.js';
import type { DB } from '../../db/schema.js';
import type { ClaimHolder } from './holder.js';
import {
  completeClaim,
  deleteClaim,
  deleteExpired,
  deleteExpiredRecord,
  findRecord,
  insertClaim,
  takeOverClaim,
  type ClaimFields,
  type IdempotencyScope,
} from './idempotency.repository.js';

const KEY_RE = /^[\x21-\x7e]{1,255}$/;

/** `field`: what the key was sent as (the HTTP header, or MCP's idempotencyKey argument). */
export function assertValidKey(key: unknown, field = 'Idempotency-Key'): asserts key is string {
  if (typeof key !== 'string' || !KEY_RE.test(key)) {
    throw new ApiError('VALIDATION_FAILED', { field }, { message: `${field} must be 1–255 visible ASCII characters.` });
  }
}

export const requestFingerprint = (method: string, path: string, body: unknown): string =>
  hash('sha256', `${method} ${path}\n${canonicalJson(body ?? null)}`, 'hex');

/** A key this request holds: only this claim may record its result or release it. */
export interface Claim {
  scope: IdempotencyScope;
  claimId: string;
  holder: ClaimHolder;
}

export type ClaimOutcome = { kind: 'claimed'; claim: Claim } | { kind: 'replay'; status: number; body: unknown };

const inUse = (scope: IdempotencyScope, retryAfterSeconds: number) =>
  new ApiError(
    'IDEMPOTENCY_KEY_IN_USE',
    { idempotencyKey: scope.key },
    { headers: { 'Retry-After': String(retryAfterSeconds) } },
  );

/**
 * Claims the key for this request (committed before the write runs, so concurrent duplicates
 * see it; Database.durableWrite), or
 * answers the stored result, or refuses: 422 for a different request, 409 while another
 * request holds it. A claim whose holder is gone or which went 30 s without a heartbeat
 * is taken over (see ClaimHolder.judge), so a crash blocks a key for 30 s at most.
 */
export async function claimKey(
  store: Database,
  holder: ClaimHolder,
  scope: IdempotencyScope,
  fingerprint: string,
  nowMs: number,
  ttlHours: number,
): Promise<ClaimOutcome> {
  await holder.ensureRegistered();
  const { db } = store;
  const now = nowIso(nowMs);
  const claimId = holder.newClaimId();
  const fields: ClaimFields = {
    request_hash: fingerprint,
    holder: holder.id,
    claim_id: claimId,
    heartbeat_at: now,
    created_at: now,
    expires_at: nowIso(nowMs + ttlHours * 3_600_000),
  };
  try {
    for (let attempt = 0; attempt < 3; attempt++) {
      if (await store.durableWrite((trx) => insertClaim(trx, scope, fields)))
        return { kind: 'claimed', claim: { scope, claimId, holder } };
      const existing = await findRecord(db, scope);
      if (!existing) continue;
      if (existing.expires_at < now) {
        await deleteExpiredRecord(db, scope, now);
        continue;
      }
      if (existing.state === 'running') {
        const verdict = await holder.judge(existing, nowMs);
        if (verdict.takeOver) {
          if (await takeOverClaim(db, scope, existing, fields))
            return { kind: 'claimed', claim: { scope, claimId, holder } };
          continue;
        }
        if (existing.request_hash !== fingerprint)
          throw new ApiError('IDEMPOTENCY_KEY_REUSED', { idempotencyKey: scope.key });
        throw inUse(scope, verdict.retryAfterSeconds);
      }
      if (existing.request_hash !== fingerprint)
        throw new ApiError('IDEMPOTENCY_KEY_REUSED', { idempotencyKey: scope.key });
      return {
        kind: 'replay',
        status: existing.response_status ?? 200,
        body: existing.response_body === null ? undefined : JSON.parse(existing.response_body),
      };
    }
    throw inUse(scope, 1);
  } catch (error) {
    holder.finished(claimId);
    throw error;
  }
}

/**
 * Stores the 2xx result; called inside the operation's transaction so both commit together.
 * If the claim was taken over meanwhile (this request outlived its lease), the result is
 * not recorded and the error rolls the operation back: the key's new holder decides.
 */
export async function completeKey(trx: Kysely<DB>, claim: Claim, status: number, body: unknown): Promise<void> {
  if (!(await completeClaim(trx, claim.scope, claim.claimId, status, JSON.stringify(body ?? null))))
    throw inUse(claim.scope, 1);
}

/**
 * Errors are not kept: a corrected retry with the same key runs. The release is tried
 * twice; if the database refuses both, the claim is no longer renewed, so it is taken
 * over at once by a retry reaching this process and after 30 s by any other.
 */
export async function releaseKey(db: Kysely<DB>, claim: Claim): Promise<void> {
  try {
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        await deleteClaim(db, claim.scope, claim.claimId);
        return;
      } catch {
        // tried once more, then left to the lease
      }
    }
  } finally {
    claim.holder.finished(claim.claimId);
  }
}

/** The request ended with its result recorded: nothing to release, stop renewing the claim. */
export const keyFinished = (claim: Claim): void => claim.holder.finished(claim.claimId);

export const purgeExpiredKeys = (db: Kysely<DB>, nowMs: number) => deleteExpired(db, nowIso(nowMs));
