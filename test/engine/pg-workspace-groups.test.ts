import { sql, type Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { MergeableWrite, WriteKind } from '../../src/db/database.js';
import type { DB } from '../../src/db/schema.js';
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
    // The recording store's own errors ("statement …") stand for those PostgreSQL answers.
    abortsTransaction: (error) => error instanceof Error && error.message.startsWith('statement'),
  };
  return store;
}

/**
 * A kind of mergeable write whose shared step logs the values it writes and, given `refuse`,
 * fails like a statement when that value is among several (alone it is written).
 */
function recordingKind(log: string[], refuse?: string): WriteKind<string, string, string> {
  return {
    async write(trx, checked) {
      log.push(`${trx} write ${checked.join(',')}`);
      if (refuse && checked.length > 1 && checked.includes(refuse)) throw new Error(`statement refused ${refuse}`);
      return checked.map((value) => value.toUpperCase());
    },
  };
}

/** A mergeable write of `kind` that checks `name` (or fails its check with `checkError`) and answers what was written, with its instant. */
function mergeable(
  log: string[],
  kind: WriteKind<string, string, string>,
  name: string,
  checkError?: Error,
): MergeableWrite<string, string, string, string> {
  return {
    kind,
    async check(trx) {
      log.push(`${trx} check ${name}`);
      if (checkError) throw checkError;
      return name;
    },
    async finish(trx, nowMs, checked, written) {
      log.push(`${trx} finish ${checked}`);
      return `${written}@${nowMs - CLOCK_MS}`;
    },
  };
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

/** Groups whose first write is held, so the writes queued next share the second transaction (t2). */
function queuedBehindAHeldWrite(refuse?: string) {
  const log: string[] = [];
  const groups = new WorkspaceGroups(recordingStore(log));
  const first = heldWrite(log, 'first');
  const running = groups.run('ws', first.work);
  const runGroup = async () => {
    first.release();
    await running;
  };
  return { log, groups, kind: recordingKind(log, refuse), runGroup };
}

/** What a transaction logs up to the insert its mergeable writes share. */
const mergedRun = (trx: string, names: string[]) => [
  `${trx} begin`,
  `${trx} order`,
  ...names.map((name) => `${trx} check ${name}`),
  `${trx} write ${names.join(',')}`,
];

/** What a mergeable write logs when it runs on its own in a group. */
const aloneInSavepoint = (trx: string, name: string) => [
  `${trx} savepoint`,
  `${trx} check ${name}`,
  `${trx} write ${name}`,
  `${trx} finish ${name}`,
];

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

  it('share one insert among writes of one kind that follow each other, each checked at its own instant', async () => {
    const { log, groups, kind, runGroup } = queuedBehindAHeldWrite();
    const results = ['b', 'c', 'd'].map((name) => groups.runMergeable('ws', mergeable(log, kind, name)));
    await runGroup();
    expect(await Promise.all(results)).toEqual(['B@0', 'C@1', 'D@2']);
    expect(log.slice(log.indexOf('t2 begin'))).toEqual([
      ...mergedRun('t2', ['b', 'c', 'd']),
      't2 finish b',
      't2 finish c',
      't2 finish d',
      't2 clock 2',
      't2 commit',
    ]);
  });

  it('answer a failed check alone, without a savepoint, while the others share the insert', async () => {
    const { log, groups, kind, runGroup } = queuedBehindAHeldWrite();
    const results = [
      groups.runMergeable('ws', mergeable(log, kind, 'b')),
      groups.runMergeable('ws', mergeable(log, kind, 'c', new Error('PROJECT_REQUIRED'))),
      groups.runMergeable('ws', mergeable(log, kind, 'd')),
    ];
    await runGroup();
    expect(await results[0]).toBe('B@0');
    await expect(results[1]).rejects.toThrow('PROJECT_REQUIRED');
    expect(await results[2]).toBe('D@2');
    expect(log.filter((line) => line.startsWith('t2'))).not.toContain('t2 savepoint');
    expect(log).toContain('t2 write b,d');
  });

  it('run the group again, each write alone in its savepoint, when a shared insert fails', async () => {
    const { log, groups, kind, runGroup } = queuedBehindAHeldWrite('c');
    const results = ['b', 'c', 'd'].map((name) => groups.runMergeable('ws', mergeable(log, kind, name)));
    await runGroup();
    // Alone, c is written too: only the shared statement failed.
    expect(await Promise.all(results)).toEqual(['B@0', 'C@1', 'D@2']);
    expect(log.slice(log.indexOf('t2 begin'))).toEqual([
      ...mergedRun('t2', ['b', 'c', 'd']),
      't2 rollback',
      't3 begin',
      't3 order',
      ...aloneInSavepoint('t3', 'b'),
      ...aloneInSavepoint('t3', 'c'),
      ...aloneInSavepoint('t3', 'd'),
      't3 clock 2',
      't3 commit',
    ]);
  });

  it('run the group again when a check’s statement fails, and let that write alone answer its failure', async () => {
    const { log, groups, kind, runGroup } = queuedBehindAHeldWrite();
    const results = [
      groups.runMergeable('ws', mergeable(log, kind, 'b')),
      groups.runMergeable('ws', mergeable(log, kind, 'c', new Error('statement timeout'))),
    ];
    await runGroup();
    expect(await results[0]).toBe('B@0');
    await expect(results[1]).rejects.toThrow('statement timeout');
    expect(log.slice(log.indexOf('t2 begin'))).toEqual([
      't2 begin',
      't2 order',
      't2 check b',
      't2 check c',
      't2 rollback',
      't3 begin',
      't3 order',
      ...aloneInSavepoint('t3', 'b'),
      't3 savepoint',
      't3 check c',
      't3 rollback to',
      't3 clock 1',
      't3 commit',
    ]);
  });

  it('share an insert only among neighbours of one kind', async () => {
    const { log, groups, kind, runGroup } = queuedBehindAHeldWrite();
    const other = recordingKind(log);
    const results = [
      groups.runMergeable('ws', mergeable(log, kind, 'b')),
      groups.runMergeable('ws', mergeable(log, kind, 'c')),
      groups.run('ws', async (trx) => {
        log.push(`${trx} plain`);
        return 'plain';
      }),
      groups.runMergeable('ws', mergeable(log, kind, 'd')),
      groups.runMergeable('ws', mergeable(log, other, 'e')),
    ];
    await runGroup();
    expect(await Promise.all(results)).toEqual(['B@0', 'C@1', 'plain', 'D@3', 'E@4']);
    expect(log.filter((line) => / (write|plain)/.test(line))).toEqual([
      't2 write b,c',
      't2 plain',
      't2 write d',
      't2 write e',
    ]);
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

  it('share one insert among creates that waited, and run again alone when it fails', async () => {
    const { database, log } = scratch;
    const kind: WriteKind<Kysely<DB>, string, string> = {
      async write(trx, values) {
        await sql`insert into t (v) values ${sql.join(values.map((value) => sql`(${value})`))}`.execute(trx);
        return [...values];
      },
    };
    const create = (value: string) =>
      database.writeMergeable('ws', {
        kind,
        check: async () => value,
        finish: async (_trx, _nowMs, checked) => checked,
      });
    const held = gate();
    const first = database.write('ws', async (trx) => {
      await scratch.insert(trx, 'a');
      await held.opened;
      return 'a';
    });
    const merged = [create('b'), create('c')];
    held.open();
    expect(await first).toBe('a');
    expect(await Promise.all(merged)).toEqual(['b', 'c']);
    expect(log).toEqual(['begin', 'insert a', 'commit', 'begin', 'insert b', 'commit']);

    log.length = 0;
    const again = gate();
    const next = database.write('ws', async () => {
      await again.opened;
      return 'next';
    });
    const [d, duplicate, e] = [create('d'), create('d'), create('e')];
    duplicate.catch(() => undefined);
    again.open();
    expect(await next).toBe('next');
    expect(await d).toBe('d');
    await expect(duplicate).rejects.toMatchObject({ code: '23505' });
    expect(await e).toBe('e');
    expect(await scratch.values()).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(log).toEqual([
      'begin',
      'commit',
      'begin',
      'insert d',
      'rollback',
      'begin',
      'savepoint wsx_write',
      'insert d',
      'savepoint wsx_write',
      'insert d',
      'rollback to wsx_write',
      'savepoint wsx_write',
      'insert e',
      'commit',
    ]);
  });
});
