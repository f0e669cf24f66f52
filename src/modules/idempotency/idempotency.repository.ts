import type { Kysely } from 'kysely';
import type { DB, IdempotencyKeyRow } from '../../db/schema.js';

export type IdempotencyScope = Pick<IdempotencyKeyRow, 'workspace_id' | 'credential_id' | 'key'>;

const scoped = (db: Kysely<DB>, scope: IdempotencyScope) => ({
  select: () =>
    db.selectFrom('idempotency_keys').selectAll()
      .where('workspace_id', '=', scope.workspace_id).where('credential_id', '=', scope.credential_id).where('key', '=', scope.key),
  delete: () =>
    db.deleteFrom('idempotency_keys')
      .where('workspace_id', '=', scope.workspace_id).where('credential_id', '=', scope.credential_id).where('key', '=', scope.key),
});

/** Inserts a `running` claim; false when a record for the key already exists. */
export async function insertClaim(db: Kysely<DB>, row: IdempotencyKeyRow): Promise<boolean> {
  const result = await db.insertInto('idempotency_keys').values(row).onConflict((oc) => oc.doNothing()).executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
}

export const findRecord = (db: Kysely<DB>, scope: IdempotencyScope) => scoped(db, scope).select().executeTakeFirst();

export async function deleteRecord(db: Kysely<DB>, scope: IdempotencyScope): Promise<void> {
  await scoped(db, scope).delete().execute();
}

export async function completeRecord(db: Kysely<DB>, scope: IdempotencyScope, status: number, body: string): Promise<void> {
  await db.updateTable('idempotency_keys').set({ state: 'done', response_status: status, response_body: body })
    .where('workspace_id', '=', scope.workspace_id).where('credential_id', '=', scope.credential_id).where('key', '=', scope.key)
    .execute();
}

export async function deleteExpired(db: Kysely<DB>, now: string): Promise<void> {
  await db.deleteFrom('idempotency_keys').where('expires_at', '<', now).execute();
}
