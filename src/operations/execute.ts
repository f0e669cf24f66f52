import type { Kysely } from 'kysely';
import { nowIso } from '../core/clock.js';
import type { Ctx } from '../db/context.js';
import { isForeignKeyViolation } from '../db/errors.js';
import type { DB } from '../db/schema.js';
import type { Operation, OperationInput, Result } from './define.js';
import type { VersionCondition } from './entity-tags.js';
import { requireVersion } from './versioned.js';

export interface ExecuteOptions {
  /** Runs in the write's transaction after the operation (the idempotency record). */
  inTransaction?: (trx: Kysely<DB>, result: Result) => Promise<void>;
  /** If-Match or expectedVersion: the versions the record must still have (op.resource). */
  condition?: VersionCondition;
}

/**
 * Runs an operation the same way for every door. A read runs as is; a write runs in one
 * transaction with everything it reads and records (activity, outbox events and, through
 * `inTransaction`, the idempotency record), so its checks see what it writes over and a
 * failure leaves no partial write. An operation's `prepare` step runs first, outside the
 * transaction, so slow work such as a DNS lookup never holds it open.
 *
 * The store gives the write its instant as its transaction opens (Database.write), so the
 * workspace's writes carry instants in commit order, and everything the write reads is read
 * in that order (on PostgreSQL it holds the workspace's write order from then to COMMIT).
 * A conditional write checks the record's version first, before it changes anything.
 */
export async function executeOperation(
  op: Operation,
  ctx: Ctx,
  input: OperationInput<any, any, any>,
  { inTransaction, condition }: ExecuteOptions = {},
): Promise<Result> {
  const prepared = op.prepare ? { prepared: await op.prepare(ctx, input) } : {};
  if (op.method === 'GET') return op.run(ctx, { ...input, ...prepared });
  const inWrite = (trx: Kysely<DB>, nowMs: number): Ctx => ({ ...ctx, db: trx, nowMs, now: nowIso(nowMs) });
  const checkCondition = async (writeCtx: Ctx) => {
    if (condition && op.resource) await requireVersion(writeCtx, op.resource, input.params, condition);
  };
  const answered = async (trx: Kysely<DB>, result: Result): Promise<Result> => {
    if (inTransaction) await inTransaction(trx, result);
    return result;
  };
  const run = (): Promise<Result> => {
    const { steps } = op;
    if (steps) {
      return ctx.store.writeMergeable(ctx.workspace.id, {
        kind: steps.kind,
        check: async (trx, nowMs) => {
          const writeCtx = inWrite(trx, nowMs);
          await checkCondition(writeCtx);
          return steps.check(writeCtx, { ...input, ...prepared });
        },
        finish: async (trx, nowMs, value, written) =>
          answered(trx, await steps.finish(inWrite(trx, nowMs), value, written)),
      });
    }
    return ctx.store.write(ctx.workspace.id, async (trx, nowMs) => {
      const writeCtx = inWrite(trx, nowMs);
      await checkCondition(writeCtx);
      return answered(trx, await op.run(writeCtx, { ...input, ...prepared }));
    });
  };
  try {
    return await run();
  } catch (error) {
    // A record the write refers to went away (or moved) between its checks and its commit,
    // by a write that does not take the workspace's order (a command of the CLI, a
    // background job): the foreign keys refused the write and rolled it back. Run once more:
    // its checks now see the record gone and answer what they answer for it (a not-found code).
    if (!isForeignKeyViolation(error)) throw error;
    return run();
  }
}
