import type { Kysely } from 'kysely';
import type { Ctx } from '../core/context.js';
import type { DB } from '../db/schema.js';
import type { Operation, OperationInput, Result } from './define.js';

/**
 * Runs an operation the same way for every door. A read runs as is; a write runs in one
 * transaction with everything it records (activity, outbox events and, through
 * `inTransaction`, the idempotency record), so a failure leaves no partial write.
 */
export async function executeOperation(
  op: Operation,
  ctx: Ctx,
  input: OperationInput<any, any, any>,
  inTransaction?: (trx: Kysely<DB>, result: Result) => Promise<void>,
): Promise<Result> {
  if (op.method === 'GET') return op.run(ctx, input);
  return ctx.db.transaction().execute(async (trx) => {
    const result = await op.run({ ...ctx, db: trx }, input);
    if (inTransaction) await inTransaction(trx, result);
    return result;
  });
}
