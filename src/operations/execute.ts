import type { Kysely } from 'kysely';
import type { Ctx } from '../core/context.js';
import type { DB } from '../db/schema.js';
import type { Operation, OperationInput, Result } from './define.js';

/**
 * Runs an operation the same way for every door. A read runs as is; a write runs in one
 * transaction with everything it records (activity, outbox events and, through
 * `inTransaction`, the idempotency record), so a failure leaves no partial write. An
 * operation's `prepare` step runs first, outside the transaction, so slow work such as a
 * DNS lookup never holds the write lock.
 */
export async function executeOperation(
  op: Operation,
  ctx: Ctx,
  input: OperationInput<any, any, any>,
  inTransaction?: (trx: Kysely<DB>, result: Result) => Promise<void>,
): Promise<Result> {
  const prepared = op.prepare ? { prepared: await op.prepare(ctx, input) } : {};
  if (op.method === 'GET') return op.run(ctx, { ...input, ...prepared });
  return ctx.db.transaction().execute(async (trx) => {
    const result = await op.run({ ...ctx, db: trx }, { ...input, ...prepared });
    if (inTransaction) await inTransaction(trx, result);
    return result;
  });
}
