import type { Kysely } from 'kysely';
import { nowIso } from '../core/clock.js';
import type { Ctx, WriteClockTaker } from '../core/context.js';
import type { DB } from '../db/schema.js';
import { lateWriteTransaction, writeTransaction } from '../db/commit-groups.js';
import { isForeignKeyViolation } from '../db/errors.js';
import { UnansweredWrites } from '../db/unanswered-writes.js';
import { takeWriteInstant } from '../db/write-clock.js';
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
 * transaction with everything it records (activity, outbox events and, through
 * `inTransaction`, the idempotency record), so a failure leaves no partial write. An
 * operation's `prepare` step runs first, outside the transaction, so slow work such as a
 * DNS lookup never holds the write lock. A write's instant is taken inside its transaction
 * (db/write-clock.ts), so the workspace's writes carry instants in commit order: as it
 * opens, or once the reads of an operation marked `lateWriteInstant` are done (on
 * PostgreSQL, where a workspace's writes queue for a shared transaction,
 * db/pg-commit-groups.ts, such a write joins the queue only then, its reads done on the
 * pool, and writes side by side with those that joined with it, db/pg-write-batches.ts;
 * if their batch is rolled back, each runs again alone); a conditional write checks the record's version there too, before it changes
 * anything. On PostgreSQL a statement the write sent without waiting for its answer (its
 * event, db/unanswered-writes.ts) is settled once the transaction has ended: its failure is
 * the write's, and the cause of whatever failed after it.
 */
export async function executeOperation(
  op: Operation,
  ctx: Ctx,
  input: OperationInput<any, any, any>,
  { inTransaction, condition }: ExecuteOptions = {},
): Promise<Result> {
  const prepared = op.prepare ? { prepared: await op.prepare(ctx, input) } : {};
  if (op.method === 'GET') return op.run(ctx, { ...input, ...prepared });
  const late = op.lateWriteInstant === true && !condition;
  /** The statements the write's last run sent unanswered: a write may run again (pg-write-batches.ts). */
  const lastRun: { unanswered?: UnansweredWrites } = {};
  /** The write: reads through `readDb`, writes through the transaction `join` answers. */
  const write = async (readDb: Kysely<DB>, join: () => Promise<Kysely<DB>>): Promise<Result> => {
    const unanswered = ctx.dialect === 'postgres' ? new UnansweredWrites() : undefined;
    lastRun.unanswered = unanswered;
    const readCtx: Ctx = { ...ctx, db: readDb, unanswered };
    let stamping: Promise<Ctx> | undefined;
    const stamp = (takenBy?: WriteClockTaker) =>
      (stamping ??= join().then(async (trx) => {
        const nowMs = await takeWriteInstant(trx, ctx.dialect, ctx.workspace.id, takenBy);
        return { ...readCtx, db: trx, nowMs, now: nowIso(nowMs) };
      }));
    const writeCtx = late ? { ...readCtx, takeWriteInstant: stamp } : await stamp();
    if (condition && op.resource) await requireVersion(writeCtx, op.resource, input.params, condition);
    const result = await op.run(writeCtx, { ...input, ...prepared });
    // A late write that never took its instant would have stamped rows with the wall clock.
    if (!stamping) throw new Error(`${op.id} finished without taking its write instant`);
    const stamped = await stamping;
    if (inTransaction) await inTransaction(stamped.db, result);
    return result;
  };
  const attempt = async (): Promise<Result> => {
    try {
      const result = late
        ? await lateWriteTransaction(ctx.db, ctx.workspace.id, write)
        : await writeTransaction(ctx.db, (trx) => write(trx, async () => trx), ctx.workspace.id);
      await lastRun.unanswered?.settle();
      return result;
    } catch (error) {
      // A statement sent unanswered that failed is the cause of what failed after it.
      await lastRun.unanswered?.settle();
      throw error;
    }
  };
  try {
    return await attempt();
  } catch (error) {
    // A record the write refers to went away (or moved) between its checks and its commit:
    // the foreign keys refused the write and rolled it back. Run once more: its checks now
    // see the record gone and answer what they answer for it (a not-found code).
    if (!isForeignKeyViolation(error)) throw error;
    return attempt();
  }
}
