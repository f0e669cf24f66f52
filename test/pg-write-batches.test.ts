import { describe, expect, it } from 'vitest';
import { lateWriteTransaction, writeTransaction } from '../src/db/commit-groups.js';
import { UnansweredWrites } from '../src/db/unanswered-writes.js';
import { logOutcome } from './support/outcome-log.js';
import { gate, scratchTable } from './support/scratch-table.js';

/**
 * On PostgreSQL the writes that join their workspace's line late (a create, after its checks)
 * write side by side in a batch, one member of the line (src/db/pg-write-batches.ts). These
 * tests hold the line with a write of their own, let late writes gather behind it, and read
 * the statements that run.
 */
describe.skipIf(!process.env.TEST_DATABASE_URL)('batches of late writes on PostgreSQL', () => {
  const scratch = scratchTable('wsx_pg_batches');
  const { log, insert, values } = scratch;
  const pause = () => new Promise((resolve) => setTimeout(resolve, 50));

  /** Holds the workspace's line with a write of `a` until the gate it answers is opened. */
  function holdLine(db = scratch.database.db): { open: () => void; written: Promise<string> } {
    const held = gate();
    const written = logOutcome(
      log,
      'a',
      writeTransaction(
        db,
        async (trx) => {
          await insert(trx, 'a');
          await held.opened;
          return 'a';
        },
        'ws_a',
      ),
    );
    return { open: held.open, written };
  }

  /**
   * A late write taking `steps` in turn (insert a value, wait, fail, insert without waiting for
   * the answer); answers its outcome, logged. Like executeOperation, it settles the statements
   * its last run left unanswered, whose failure is the cause of its own.
   */
  function lateWrite(
    name: string,
    steps: Array<string | Promise<void> | Error | { unanswered: string }>,
    db = scratch.database.db,
  ): Promise<string> {
    let unanswered = new UnansweredWrites();
    const written = lateWriteTransaction(db, 'ws_a', async (_readDb, join) => {
      unanswered = new UnansweredWrites();
      const trx = await join();
      for (const step of steps) {
        if (typeof step === 'string') await insert(trx, step);
        else if (step instanceof Error) throw step;
        else if (step instanceof Promise) await step;
        else await unanswered.send(() => insert(trx, step.unanswered));
      }
      return name;
    });
    const settled = written.then(
      async (result) => {
        await unanswered.settle();
        return result;
      },
      async (error: unknown) => {
        await unanswered.settle();
        throw error;
      },
    );
    return logOutcome(log, name, settled);
  }

  it('runs the late writes that gather behind the line side by side: no savepoint between them, one check, one COMMIT', async () => {
    const line = holdLine();
    const late = ['b', 'c', 'd'].map((value) => lateWrite(value, [value]));
    await pause();
    line.open();
    expect(await Promise.all([line.written, ...late])).toEqual(['a', 'b', 'c', 'd']);
    expect(log.slice(0, 8)).toEqual([
      'begin',
      'insert a',
      'savepoint wsx_member',
      'insert b',
      'insert c',
      'insert d',
      'select 1',
      'savepoint wsx_member',
    ]);
    expect(log[8]).toBe('commit');
    expect(log.slice(9).sort()).toEqual(['answered a', 'answered b', 'answered c', 'answered d']);
    expect(await values()).toEqual(['a', 'b', 'c', 'd']);
  });

  it('sends a write’s first statement behind the first of the write before it, and its later ones once that write is done', async () => {
    const line = holdLine();
    const bHolds = gate();
    const b = lateWrite('b', ['b1', bHolds.opened, 'b2']);
    const c = lateWrite('c', ['c1', 'c2']);
    await pause();
    line.open();
    // c's first statement went out without waiting for b; its second waits for b to be over.
    await pause();
    try {
      expect(log.filter((entry) => entry.startsWith('insert'))).toEqual(['insert a', 'insert b1', 'insert c1']);
    } finally {
      // Let the line go whatever was seen, or it holds the tests after this one.
      bHolds.open();
    }
    expect(await Promise.all([line.written, b, c])).toEqual(['a', 'b', 'c']);
    expect(log.filter((entry) => entry.startsWith('insert'))).toEqual([
      'insert a',
      'insert b1',
      'insert c1',
      'insert b2',
      'insert c2',
    ]);
    expect(await values()).toEqual(['a', 'b1', 'b2', 'c1', 'c2']);
  });

  it('rolls the batch back when one of its writes fails, runs the others again alone, and fails only that one', async () => {
    const line = holdLine();
    const b = lateWrite('b', ['b']);
    const x = lateWrite('x', ['x', new Error('after joining')]);
    const c = lateWrite('c', ['c']);
    await pause();
    line.open();
    await expect(x).rejects.toThrow('after joining');
    expect(await Promise.all([line.written, b, c])).toEqual(['a', 'b', 'c']);
    expect(log).toContain('rollback to savepoint wsx_member');
    // Each ran twice: in the batch, then alone.
    for (const value of ['b', 'x', 'c']) expect(log.filter((entry) => entry === `insert ${value}`)).toHaveLength(2);
    expect(await values()).toEqual(['a', 'b', 'c']);
  });

  it('rolls the batch back when a statement a write left unanswered failed, though every write was over', async () => {
    await insert(scratch.database.db, 'taken');
    const line = holdLine();
    const b = lateWrite('b', ['b']);
    const c = lateWrite('c', ['c']);
    // The batch's last statement: nothing after it in the batch fails for it.
    const x = lateWrite('x', [{ unanswered: 'taken' }]);
    await pause();
    line.open();
    await expect(x).rejects.toThrow(/duplicate key/);
    expect(await Promise.all([line.written, b, c])).toEqual(['a', 'b', 'c']);
    expect(await values()).toEqual(['a', 'b', 'c', 'taken']);
  });

  it('does not run a failing write again when it was alone in its batch', async () => {
    await expect(lateWrite('x', ['x', new Error('alone')])).rejects.toThrow('alone');
    expect(log).toEqual(['begin', 'insert x', 'rollback', 'failed x']);
    expect(await values()).toEqual([]);
  });

  it('takes at most 32 writes in a batch: the rest write in the next', async () => {
    const line = holdLine();
    const names = Array.from({ length: 40 }, (_, index) => `w${String(index).padStart(2, '0')}`);
    const late = names.map((name) => lateWrite(name, [name]));
    await pause();
    line.open();
    expect(await Promise.all([line.written, ...late])).toEqual(['a', ...names]);
    expect(log.filter((entry) => entry === 'select 1')).toHaveLength(2);
    expect(log.filter((entry) => entry === 'commit')).toHaveLength(1);
    expect(await values()).toEqual(['a', ...names]);
  });

  it('fails the writes of a batch whose transaction cannot begin, without running them again', async () => {
    // One connection, held: a transaction can begin only once the pool's wait for it has timed out.
    const single = await scratch.openWithOneConnection();
    try {
      const held = gate();
      const holding = single.db.connection().execute(() => held.opened);
      const late = ['b', 'c'].map((value) =>
        lateWriteTransaction(single.db, 'ws_a', async (_readDb, join) => {
          await insert(await join(), value);
          return value;
        }).then(
          () => 'written',
          (error: Error) => error.message,
        ),
      );
      expect(await Promise.all(late)).toEqual([expect.stringMatching(/timeout/i), expect.stringMatching(/timeout/i)]);
      held.open();
      await holding;
      expect(log.filter((entry) => entry.startsWith('insert'))).toEqual([]);
      expect(await values()).toEqual([]);
    } finally {
      await single.close();
    }
  });
});
