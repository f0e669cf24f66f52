import { sql, type Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { lateWriteTransaction, writeTransaction } from '../src/db/commit-groups.js';
import type { DB } from '../src/db/schema.js';
import { UnansweredWrites } from '../src/db/unanswered-writes.js';
import { logOutcome } from './support/outcome-log.js';
import { gate, scratchTable } from './support/scratch-table.js';

/**
 * On PostgreSQL the operations' writes of one workspace queue in the process, and those that
 * queue while a transaction runs join it (src/db/pg-commit-groups.ts): each later one in a
 * savepoint, all answered after one COMMIT. These tests drive writeTransaction on a store of
 * their own and read the statements it runs.
 */
describe.skipIf(!process.env.TEST_DATABASE_URL)('commit groups per workspace on PostgreSQL', () => {
  const scratch = scratchTable('wsx_pg_groups');
  const { log, insert, values } = scratch;

  /** A write of `workspace` inserting `value`; answers its outcome, logged as it is learnt. */
  function write(
    value: string,
    options: { workspace?: string; wait?: Promise<void>; fail?: Error; unanswered?: UnansweredWrites } = {},
  ): Promise<string> {
    return logOutcome(
      log,
      value,
      writeTransaction(
        scratch.database.db,
        async (trx) => {
          if (options.unanswered) await options.unanswered.send(() => insert(trx, value));
          else await insert(trx, value);
          if (options.wait) await options.wait;
          if (options.fail) throw options.fail;
          return value;
        },
        options.workspace ?? 'ws_a',
      ),
    );
  }

  it('runs the writes that queue behind a transaction in it, each in a savepoint, answered after one COMMIT', async () => {
    const held = gate();
    const first = write('a', { wait: held.opened });
    const later = [write('b'), write('c')];
    await new Promise((resolve) => setTimeout(resolve, 50));
    held.open();
    expect(await Promise.all([first, ...later])).toEqual(['a', 'b', 'c']);
    expect(log).toEqual([
      'begin',
      'insert a',
      'savepoint wsx_member',
      'insert b',
      'savepoint wsx_member',
      'insert c',
      'savepoint wsx_member',
      'commit',
      'answered a',
      'answered b',
      'answered c',
    ]);
    expect(await values()).toEqual(['a', 'b', 'c']);
  });

  it('runs a lone write as a plain transaction', async () => {
    expect(await write('a')).toBe('a');
    expect(log).toEqual(['begin', 'insert a', 'commit', 'answered a']);
  });

  it('rolls back a failing write to its savepoint alone: the others commit', async () => {
    const held = gate();
    const first = write('a', { wait: held.opened });
    const failing = write('b', { fail: new Error('b fails') });
    const last = write('c');
    await new Promise((resolve) => setTimeout(resolve, 50));
    held.open();
    await expect(failing).rejects.toThrow('b fails');
    expect(await Promise.all([first, last])).toEqual(['a', 'c']);
    expect(await values()).toEqual(['a', 'c']);
    expect(log).toContain('rollback to savepoint wsx_member');
  });

  it.each([
    ['before the next write joins', 'b'],
    ['before the COMMIT, when it is the last', 'c'],
  ])(
    'rolls back a write whose unanswered statement failed alone, found %s: the COMMIT keeps the others',
    async (_when, failing) => {
      await insert(scratch.database.db, failing);
      log.length = 0;
      const held = gate();
      const unanswered = new UnansweredWrites();
      const outcomes: Record<string, Promise<string>> = Object.fromEntries(
        ['a', 'b', 'c'].map((value) => [
          value,
          write(value, value === 'a' ? { wait: held.opened } : value === failing ? { unanswered } : {}),
        ]),
      );
      await new Promise((resolve) => setTimeout(resolve, 50));
      held.open();
      await expect(outcomes[failing]).rejects.toThrow(/aborted/);
      await expect(unanswered.settle()).rejects.toThrow(/duplicate key/);
      const others = ['a', 'b', 'c'].filter((value) => value !== failing);
      expect(await Promise.all(others.map((value) => outcomes[value]))).toEqual(others);
      expect(await values()).toEqual(['a', 'b', 'c']);
    },
  );

  it('fails the first write alone when its unanswered statement failed: the queued writes commit in a transaction of their own', async () => {
    await insert(scratch.database.db, 'a');
    log.length = 0;
    const held = gate();
    const unanswered = new UnansweredWrites();
    const duplicate = write('a', { unanswered, wait: held.opened });
    const later = [write('b'), write('c')];
    await new Promise((resolve) => setTimeout(resolve, 50));
    held.open();
    await expect(duplicate).rejects.toThrow(/aborted/);
    await expect(unanswered.settle()).rejects.toThrow(/duplicate key/);
    expect(await Promise.all(later)).toEqual(['b', 'c']);
    expect(await values()).toEqual(['a', 'b', 'c']);
    expect(log.filter((entry) => entry === 'begin')).toHaveLength(2);
    expect(log.filter((entry) => entry === 'rollback')).toHaveLength(1);
  });

  it('keeps the workspaces apart: another workspace’s write does not wait for a held transaction', async () => {
    const held = gate();
    const first = write('a', { wait: held.opened });
    expect(await write('z', { workspace: 'ws_b' })).toBe('z');
    expect(await values()).toEqual(['z']);
    held.open();
    expect(await first).toBe('a');
    expect(await values()).toEqual(['a', 'z']);
  });

  it('takes at most 32 writes in one transaction: the rest commit in the next', async () => {
    const held = gate();
    const first = write('w00', { wait: held.opened });
    const names = Array.from({ length: 39 }, (_, index) => `w${String(index + 1).padStart(2, '0')}`);
    const later = names.map((value) => write(value));
    await new Promise((resolve) => setTimeout(resolve, 50));
    held.open();
    expect(await Promise.all([first, ...later])).toEqual(['w00', ...names]);
    expect(log.filter((entry) => entry === 'commit')).toHaveLength(2);
    const firstCommit = log.indexOf('commit');
    expect(log.slice(0, firstCommit).filter((entry) => entry.startsWith('insert '))).toHaveLength(32);
    expect(await values()).toHaveLength(40);
  });

  it('fails every write of a transaction whose connection is lost, and the next write runs on a fresh one', async () => {
    let backend = 0;
    const secondStarted = gate();
    const held = gate();
    const first = writeTransaction(
      scratch.database.db,
      async (trx) => {
        await insert(trx, 'a');
        backend = (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx)).rows[0].pid;
        return 'a';
      },
      'ws_a',
    );
    const second = writeTransaction(
      scratch.database.db,
      async (trx) => {
        await insert(trx, 'b');
        secondStarted.open();
        await held.opened;
        return 'b';
      },
      'ws_a',
    );
    await secondStarted.opened;
    await sql`select pg_terminate_backend(${backend})`.execute(scratch.database.db);
    held.open();
    const outcomes = await Promise.allSettled([first, second]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
    expect(await write('c')).toBe('c');
    expect(await values()).toEqual(['c']);
  });

  /** Whether `db` runs in a transaction that has written (it has a transaction id). */
  const writing = async (db: Kysely<DB>) =>
    (await sql<{ xid: string | null }>`select txid_current_if_assigned()::text as xid`.execute(db)).rows[0].xid !==
    null;

  it('runs a late write’s reads on the pool while the line is held, and its writes in the shared transaction', async () => {
    const held = gate();
    const first = write('a', { wait: held.opened });
    let readWhileHeld = false;
    let joinedWriting = false;
    const late = lateWriteTransaction(scratch.database.db, 'ws_a', async (readDb, join) => {
      // The line is held by `first`: a read that had to wait for it would not finish before it is let go.
      readWhileHeld = !(await writing(readDb)) && (await values()).length === 0;
      const trx = await join();
      await insert(trx, 'b');
      joinedWriting = await writing(trx);
      return 'b';
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(readWhileHeld).toBe(true);
    held.open();
    expect(await Promise.all([first, late])).toEqual(['a', 'b']);
    expect(joinedWriting).toBe(true);
    expect(log.filter((entry) => entry === 'commit')).toHaveLength(1);
    expect(await values()).toEqual(['a', 'b']);
  });

  it('rolls back a late write that fails after joining alone, and leaves the line to one that fails before', async () => {
    const held = gate();
    const first = write('a', { wait: held.opened });
    const failsInside = lateWriteTransaction(scratch.database.db, 'ws_a', async (_readDb, join) => {
      await insert(await join(), 'b');
      throw new Error('after joining');
    });
    const failsOutside = lateWriteTransaction(scratch.database.db, 'ws_a', async () => {
      throw new Error('before joining');
    });
    const last = write('c');
    await expect(failsOutside).rejects.toThrow('before joining');
    await new Promise((resolve) => setTimeout(resolve, 50));
    held.open();
    await expect(failsInside).rejects.toThrow('after joining');
    expect(await Promise.all([first, last])).toEqual(['a', 'c']);
    expect(await values()).toEqual(['a', 'c']);
  });

  it('fails the writes waiting for a transaction that cannot begin, as each would have failed alone', async () => {
    // One connection, held: a transaction can begin only once the pool's wait for it has timed out.
    const single = await scratch.openWithOneConnection();
    try {
      const held = gate();
      const holding = single.db.connection().execute(() => held.opened);
      const waiting = ['a', 'b'].map((value) =>
        writeTransaction(single.db, async (trx) => insert(trx, value), 'ws_a').then(
          () => 'written',
          (error: Error) => error.message,
        ),
      );
      expect(await Promise.all(waiting)).toEqual([
        expect.stringMatching(/timeout/i),
        expect.stringMatching(/timeout/i),
      ]);
      held.open();
      await holding;
      await writeTransaction(single.db, async (trx) => insert(trx, 'c'), 'ws_a');
      expect(await values()).toEqual(['c']);
    } finally {
      await single.close();
    }
  });
});
