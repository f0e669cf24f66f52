import type { Kysely } from 'kysely';
import type { DB, IdempotencyKeyRow } from '../../db/schema.js';

export type IdempotencyScope = Pick<IdempotencyKeyRow, 'workspace_id' | 'credential_id' | 'key'>;

/** The fields a claim sets when it is made or taken over. */
export type ClaimFields = Pick<
  IdempotencyKeyRow,
  'request_hash' | 'holder' | 'claim_id' | 'heartbeat_at' | 'created_at' | 'expires_at'
>;

const inScope = (db: Kysely<DB>, scope: IdempotencyScope) => ({
  select: () =>
    db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('workspace_id', '=', scope.workspace_id)
      .where('credential_id', '=', scope.credential_id)
      .where('key', '=', scope.key),
  update: () =>
    db
      .updateTable('idempotency_keys')
      .where('workspace_id', '=', scope.workspace_id)
      .where('credential_id', '=', scope.credential_id)
      .where('key', '=', scope.key),
  delete: () =>
    db
      .deleteFrom('idempotency_keys')
      .where('workspace_id', '=', scope.workspace_id)
      .where('credential_id', '=', scope.credential_id)
      .where('key', '=', scope.key),
});

const changed = (
  result: { numUpdatedRows?: bigint; numDeletedRows?: bigint; numInsertedOrUpdatedRows?: bigint } | undefined,
) => Number(result?.numUpdatedRows ?? result?.numDeletedRows ?? result?.numInsertedOrUpdatedRows ?? 0n) > 0;

/** Inserts a `running` claim; false when a record for the key already exists. */
export async function insertClaim(db: Kysely<DB>, scope: IdempotencyScope, claim: ClaimFields): Promise<boolean> {
  const result = await db
    .insertInto('idempotency_keys')
    .values({ ...scope, ...claim, state: 'running', response_status: null, response_body: null })
    .onConflict((oc) => oc.doNothing())
    .executeTakeFirst();
  return changed(result);
}

export const findRecord = (db: Kysely<DB>, scope: IdempotencyScope) => inScope(db, scope).select().executeTakeFirst();

/**
 * Takes over a running claim, only if it is still the one that was judged stale (same
 * claim_id, or for rows older than claim ids the same created_at): two takers, or a
 * holder finishing meanwhile, cannot both win.
 */
export async function takeOverClaim(
  db: Kysely<DB>,
  scope: IdempotencyScope,
  seen: IdempotencyKeyRow,
  claim: ClaimFields,
): Promise<boolean> {
  let query = inScope(db, scope)
    .update()
    .set({ ...claim, state: 'running', response_status: null, response_body: null })
    .where('state', '=', 'running');
  query =
    seen.claim_id === null
      ? query.where('claim_id', 'is', null).where('created_at', '=', seen.created_at)
      : query.where('claim_id', '=', seen.claim_id);
  return changed(await query.executeTakeFirst());
}

/** Records the result, only if this claim still holds the key; false when it was taken over. */
export async function completeClaim(
  db: Kysely<DB>,
  scope: IdempotencyScope,
  claimId: string,
  status: number,
  body: string,
): Promise<boolean> {
  const result = await inScope(db, scope)
    .update()
    .set({ state: 'done', response_status: status, response_body: body })
    .where('claim_id', '=', claimId)
    .where('state', '=', 'running')
    .executeTakeFirst();
  return changed(result);
}

/** Deletes this claim (never another's that took the key over). */
export async function deleteClaim(db: Kysely<DB>, scope: IdempotencyScope, claimId: string): Promise<void> {
  await inScope(db, scope).delete().where('claim_id', '=', claimId).where('state', '=', 'running').execute();
}

/** Deletes the key's record if it is past its TTL. */
export async function deleteExpiredRecord(db: Kysely<DB>, scope: IdempotencyScope, now: string): Promise<void> {
  await inScope(db, scope).delete().where('expires_at', '<', now).execute();
}

/** Keeps the given claims alive. */
export async function renewClaims(db: Kysely<DB>, claimIds: string[], now: string): Promise<void> {
  // In slices, so a busy process stays well under the stores' bound-parameter limits.
  for (let start = 0; start < claimIds.length; start += 500) {
    await db
      .updateTable('idempotency_keys')
      .set({ heartbeat_at: now })
      .where('claim_id', 'in', claimIds.slice(start, start + 500))
      .where('state', '=', 'running')
      .execute();
  }
}

export async function deleteExpired(db: Kysely<DB>, now: string): Promise<void> {
  await db.deleteFrom('idempotency_keys').where('expires_at', '<', now).execute();
}
