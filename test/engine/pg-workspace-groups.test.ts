import { describe, expect, it } from 'vitest';
import { MAX_GROUP, WorkspaceGroups, type GroupTransactions } from '../../src/db/postgres/workspace-groups.js';
import { gate, scratchTable } from '../support/scratch-table.js';

/**
 * A PostgreSQL store runs each workspace's writes in groups (src/db/postgres/
 * workspace-groups.ts): the writes that arrive while a transaction runs share the next one,
 * each in a savepoint. These tests drive the groups with a store that records what it is
 * asked to run, and with writes they hold open.
 */

/** The instant the recording store's clock gives as a transaction takes the order: ahead of the wall clock. */
const CLOCK_MS = Date.now() + 3_600_000;

/** A store whose transactions log their statements and whose COMMIT can be made to fail. */
function recordingStore(log: string[], options: { failCommit?: boolean } = {}) {
  let next = 0;
  const store: GroupTransactions<string> = {
    async transaction(body) {
      const trx = `t${++next}`;
      log.push(`${trx} begin`);
      try {
        const value = await body(trx);
        if (options.failCommit) throw new Error('commit failed');
        log.push(`${trx} commit`);
        return value;
      } catch (error) {
        log.push(`${trx} rollback`);
        throw error;
      }
    },
    async takeOrder(trx) {
      log.push(`${trx} order`);
      return CLOCK_MS;
    },
    async setClock(trx, _workspaceId, ms) {
      log.push(`${trx} clock ${ms - CLOCK_MS}`);
    },
    async savepoint(trx, step) {
      log.push(`${trx} ${step}`);
    },
  };
  return store;
}

/** A write that runs until released (or failed), logging the transaction it runs in. */
function heldWrite(log: string[], name: string) {
  let release!: () => void;
  let fail!: (error: Error) => void;
  const done = new Promise<string>((resolve, reject) => {
    release = () => resolve(name);
    fail = reject;
  });
  return {
    work: (trx: string) => {
      log.push(`${trx} ${name}`);
      return done;
    },
    release,
    fail,
  };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('the writes of one workspace on PostgreSQL', () => {
  it('run alone when the workspace is idle, then share one transaction with those that waited', async () => {
    const log: string[] = [];
    const groups = new WorkspaceGroups(recordingStore(log));
    const [a, b, c] = ['a', 'b', 'c'].map((name) => heldWrite(log, name));
    const results = [groups.run('ws', a.work), groups.run('ws', b.work), groups.run('ws', c.work)];
    await settle();
    expect(log).toEqual(['t1 begin', 't1 order', 't1 a']);
    b.release();
    c.release();
    a.release();
    expect(await Promise.all(results)).toEqual(['a', 'b', 'c']);
    expect(log).toEqual([
      't1 begin',
      't1 order',
      't1 a',
      't1 commit',
      't2 begin',
      't2 order',
      't2 savepoint',
      't2 b',
      't2 savepoint',
      't2 c',
      't2 clock 1',
      't2 commit',
    ]);
  });

  it('answer a write only once its group has committed', async () => {
    const log: string[] = [];
    const groups = new WorkspaceGroups(recordingStore(log));
    const [a, b, c] = ['a', 'b', 'c'].map((name) => heldWrite(log, name));
    const answered: string[] = [];
    const first = groups.run('ws', a.work);
    const both = [groups.run('ws', b.work), groups.run('ws', c.work)].map((p) => p.then((v) => answered.push(v)));
    a.release();
    await first;
    b.release();
    await settle();
    expect(log.at(-1)).toBe('t2 c');
    expect(answered).toEqual([]);
    c.release();
    await Promise.all(both);
    expect(answered).toEqual(['b', 'c']);
  });

  it('roll back only a failing write of a group, which alone answers its failure', async () => {
    const log: string[] = [];
    const groups = new WorkspaceGroups(recordingStore(log));
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((name) => heldWrite(log, name));
    const first = groups.run('ws', a.work);
    const results = [b, c, d].map((write) => groups.run('ws', write.work));
    results[1].catch(() => undefined);
    a.release();
    b.release();
    c.fail(new Error('refused'));
    d.release();
    await first;
    await expect(results[1]).rejects.toThrow('refused');
    expect(await results[0]).toBe('b');
    expect(await results[2]).toBe('d');
    expect(log.slice(log.indexOf('t2 c'))).toEqual([
      't2 c',
      't2 rollback to',
      't2 savepoint',
      't2 d',
      't2 clock 2',
      't2 commit',
    ]);
  });

  it('fail every write of a group whose COMMIT fails', async () => {
    const log: string[] = [];
    const groups = new WorkspaceGroups(recordingStore(log, { failCommit: true }));
    const [a, b] = ['a', 'b'].map((name) => heldWrite(log, name));
    const results = [groups.run('ws', a.work), groups.run('ws', b.work)];
    a.release();
    b.release();
    await expect(results[0]).rejects.toThrow('commit failed');
    await expect(results[1]).rejects.toThrow('commit failed');
  });

  it('let the next write run after a lone write that fails', async () => {
    const log: string[] = [];
    const groups = new WorkspaceGroups(recordingStore(log));
    const [a, b] = ['a', 'b'].map((name) => heldWrite(log, name));
    const failed = groups.run('ws', a.work);
    const next = groups.run('ws', b.work);
    a.fail(new Error('refused'));
    await expect(failed).rejects.toThrow('refused');
    b.release();
    expect(await next).toBe('b');
    expect(log).toEqual(['t1 begin', 't1 order', 't1 a', 't1 rollback', 't2 begin', 't2 order', 't2 b', 't2 commit']);
  });

  it('fail every write of a group whose savepoint fails, with the savepoint’s error', async () => {
    const log: string[] = [];
    const store = recordingStore(log);
    store.savepoint = async (trx, step) => {
      log.push(`${trx} ${step}`);
      throw new Error('savepoint refused');
    };
    const groups = new WorkspaceGroups(store);
    const [a, b, c] = ['a', 'b', 'c'].map((name) => heldWrite(log, name));
    const first = groups.run('ws', a.work);
    const results = [groups.run('ws', b.work), groups.run('ws', c.work)];
    a.release();
    b.release();
    c.release();
    expect(await first).toBe('a');
    await expect(results[0]).rejects.toThrow('savepoint refused');
    await expect(results[1]).rejects.toThrow('savepoint refused');
    expect(log.slice(log.indexOf('t2 begin'))).toEqual(['t2 begin', 't2 order', 't2 savepoint', 't2 rollback']);
  });

  it('give each write of a group an instant past the one before, and leave the clock at the last', async () => {
    const log: string[] = [];
    const groups = new WorkspaceGroups(recordingStore(log));
    const first = heldWrite(log, 'first');
    const running = groups.run('ws', first.work);
    const instants = Array.from({ length: 3 }, () => groups.run('ws', async (_trx, nowMs) => nowMs - CLOCK_MS));
    first.release();
    await running;
    expect(await Promise.all(instants)).toEqual([0, 1, 2]);
    expect(log.filter((line) => line.startsWith('t2 clock'))).toEqual(['t2 clock 2']);
  });

  it(`carry at most ${MAX_GROUP} writes in one transaction`, async () => {
    const log: string[] = [];
    const groups = new WorkspaceGroups(recordingStore(log));
    const first = heldWrite(log, 'first');
    const running = groups.run('ws', first.work);
    const rest = Array.from({ length: MAX_GROUP + 1 }, (_, i) => groups.run('ws', async () => `w${i}`));
    first.release();
    await running;
    expect(await Promise.all(rest)).toHaveLength(MAX_GROUP + 1);
    expect(log.filter((line) => line.endsWith('begin'))).toEqual(['t1 begin', 't2 begin', 't3 begin']);
    expect(log.filter((line) => line === 't2 savepoint')).toHaveLength(MAX_GROUP);
  });

  it('do not hold up another workspace’s writes', async () => {
    const log: string[] = [];
    const groups = new WorkspaceGroups(recordingStore(log));
    const [a, b] = ['a', 'b'].map((name) => heldWrite(log, name));
    const first = groups.run('ws-1', a.work);
    const other = groups.run('ws-2', b.work);
    await settle();
    // Both run at once, each in its own transaction.
    expect(log.filter((line) => / [ab]$/.test(line))).toEqual(['t1 a', 't2 b']);
    b.release();
    expect(await other).toBe('b');
    a.release();
    expect(await first).toBe('a');
  });
});

describe.skipIf(!process.env.TEST_DATABASE_URL)('the writes of one workspace on a PostgreSQL store', () => {
  const scratch = scratchTable('wsx_groups');

  it('commit together once they have waited, and roll back only the one that fails', async () => {
    const { database, insert, log } = scratch;
    const held = gate();
    const writeOf = (value: string, answer: string) =>
      database.write('ws', async (trx) => {
        await insert(trx, value);
        return answer;
      });
    const first = database.write('ws', async (trx) => {
      await insert(trx, 'a');
      await held.opened;
      return 'a';
    });
    const [b, duplicate, c] = [writeOf('b', 'b'), writeOf('b', 'duplicate'), writeOf('c', 'c')];
    duplicate.catch(() => undefined);
    held.open();
    expect(await first).toBe('a');
    expect(await b).toBe('b');
    await expect(duplicate).rejects.toMatchObject({ code: '23505' });
    expect(await c).toBe('c');
    expect(await scratch.values()).toEqual(['a', 'b', 'c']);
    expect(log).toEqual([
      'begin',
      'insert a',
      'commit',
      'begin',
      'savepoint wsx_write',
      'insert b',
      'savepoint wsx_write',
      'insert b',
      'rollback to wsx_write',
      'savepoint wsx_write',
      'insert c',
      'commit',
    ]);
  });
});
