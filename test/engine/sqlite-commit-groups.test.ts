import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql, type Kysely } from 'kysely';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/connect.js';
import type { Database } from '../../src/db/database.js';
import type { DB } from '../../src/db/schema.js';
import { logOutcome } from '../support/outcome-log.js';

/**
 * The operations' writes on SQLite commit in groups (src/db/sqlite/commit-groups.ts): what one turn
 * of the event loop starts shares one transaction and one COMMIT, and each answers only once
 * that COMMIT is done. These tests drive Database.write on a store of their own and read
 * the statements it runs.
 */

const dir = mkdtempSync(join(tmpdir(), 'wsx-commit-groups-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let database: Database;
let log: string[];
let file: string;

beforeEach(async () => {
  file = join(dir, `${Math.random().toString(36).slice(2)}.sqlite`);
  database = await openDatabase(`sqlite:${file}`);
  await sql`create table t (v text not null)`.execute(database.db);
  log = [];
  database.statements.observe((text) => {
    if (/^(begin|commit|rollback|savepoint|release)/i.test(text)) log.push(text.toLowerCase());
  });
});
afterEach(async () => database.close());

const insert = (trx: Kysely<DB>, value: string) => sql`insert into t (v) values (${value})`.execute(trx);

async function values(db: Kysely<DB> = database.db): Promise<string[]> {
  const { rows } = await sql<{ v: string }>`select v from t order by v`.execute(db);
  return rows.map((row) => row.v);
}

/** A write that records when its caller learns the outcome, in the statement log. */
function write(value: string, fail?: Error): Promise<string> {
  return logOutcome(
    log,
    value,
    database.write('ws', async (trx) => {
      await insert(trx, value);
      if (fail) throw fail;
      return value;
    }),
  );
}

/**
 * The log of one group whose writes answer `answered`, in order: the first opens the
 * transaction, each later one is a savepoint in it, one COMMIT, then every answer.
 */
const oneGroup = (...answered: string[]): string[] => [
  'begin immediate',
  ...answered.slice(1).flatMap(() => ['savepoint wsx_write', 'release wsx_write']),
  'commit',
  ...answered.map((value) => `answered ${value}`),
];

/**
 * A lone write whose transaction has ended and whose group waits for the end of the turn:
 * answers the write's outcome, still pending.
 */
async function waitingForCommit(value: string): Promise<{ outcome: Promise<string> }> {
  let worked = false;
  const outcome = database.write('ws', async (trx) => {
    await insert(trx, value);
    worked = true;
    return value;
  });
  const microtask = () => Promise.resolve();
  while (!worked) await microtask();
  // The write's transaction ends a few microtasks after its work; the turn's COMMIT comes later.
  for (let hop = 0; hop < 5; hop++) await microtask();
  expect(log).toEqual(['begin immediate']);
  return { outcome };
}

describe('writes of one turn on SQLite', () => {
  it('share one transaction and one COMMIT, and each answers only after it', async () => {
    const results = await Promise.all(['a', 'b', 'c', 'd'].map((value) => write(value)));

    expect(results).toEqual(['a', 'b', 'c', 'd']);
    expect(await values()).toEqual(['a', 'b', 'c', 'd']);
    expect(log).toEqual(oneGroup('a', 'b', 'c', 'd'));
  });

  it('cost a lone write no statement beyond BEGIN and COMMIT', async () => {
    await write('alone');
    expect(log).toEqual(oneGroup('alone'));
  });

  it('roll a failing write back to its savepoint and commit the others', async () => {
    const refused = new Error('refused');
    const outcomes = await Promise.allSettled([write('a'), write('b', refused), write('c')]);

    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((outcomes[1] as PromiseRejectedResult).reason).toBe(refused);
    expect(await values()).toEqual(['a', 'c']);
    expect(log).toContain('rollback to wsx_write');
    expect(log.filter((text) => text === 'commit')).toHaveLength(1);
  });

  it('roll back a failing first write whole, and the next write opens the group', async () => {
    const outcomes = await Promise.allSettled([write('a', new Error('refused')), write('b')]);

    expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'fulfilled']);
    expect(await values()).toEqual(['b']);
    expect(log.slice(0, 3)).toEqual(['begin immediate', 'rollback', 'begin immediate']);
  });

  it('forget the commit that came due during a failing first write that outlived the turn', async () => {
    const failing = database.write('ws', async (trx) => {
      await insert(trx, 'x');
      // Past the end of the turn: the group's commit comes due while this write is open.
      await new Promise((resolve) => setTimeout(resolve, 5));
      throw new Error('refused');
    });
    await expect(failing).rejects.toThrow('refused');
    log.length = 0;

    expect(await Promise.all([write('a'), write('b')])).toEqual(['a', 'b']);
    expect(log.filter((text) => text === 'commit')).toHaveLength(1);
    expect(await values()).toEqual(['a', 'b']);
  });

  it('fail every write of a group that SQLite rolled back, so none is acknowledged', async () => {
    // SQLite ends a transaction by itself after a full disk or an I/O error; a ROLLBACK
    // inside the last write stands in for that here.
    const first = write('a');
    const last = database.write('ws', async (trx) => {
      await insert(trx, 'b');
      await sql`rollback`.execute(trx);
      return 'b';
    });
    const outcomes = await Promise.allSettled([first, last]);

    expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
    expect(await values()).toEqual([]);
    // The store goes on: the next write starts a group of its own.
    await write('c');
    expect(await values()).toEqual(['c']);
  });

  it('commit before any other use of the connection, so a read sees only writes that stay', async () => {
    const kept = write('a');
    const read = values();
    // A later write of the turn loses its group (as in the test above): had the read run
    // inside the group, it would have shown 'a', which would then be gone.
    const lost = database.write('ws', async (trx) => {
      await insert(trx, 'b');
      await sql`rollback`.execute(trx);
    });

    expect(await read).toEqual(['a']);
    expect(await kept).toBe('a');
    await expect(lost).rejects.toThrow();
    expect(await values()).toEqual(['a']);
  });

  it('hold a read back while a write is under way, and never show it the write when it fails', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    // A write that waits (not only for statements) inside its transaction, then fails.
    const slow = database.write('ws', async (trx) => {
      await insert(trx, 'unfinished');
      await gate;
      throw new Error('refused');
    });
    const done = write('done');
    await new Promise((resolve) => setTimeout(resolve, 10));
    // A read outside every write waits for the connection, then for nothing uncommitted.
    const read = values();
    release();

    await expect(slow).rejects.toThrow('refused');
    expect(await done).toBe('done');
    expect(await read).toEqual(['done']);
    expect(log.indexOf('commit')).toBeLessThan(log.indexOf('answered done'));
  });

  it('commit a waiting group before another transaction begins', async () => {
    const pending = write('a');
    const other = database.db.transaction().execute(async (trx) => {
      await insert(trx, 'b');
      return values(trx);
    });

    expect(await other).toEqual(['a', 'b']);
    expect(await pending).toBe('a');
    expect(log.filter((text) => text === 'commit')).toHaveLength(2);
  });

  it('keep the originals a joining write saves in memory, not in a temporary file', async () => {
    const { rows } = await sql<{ temp_store: number }>`pragma temp_store`.execute(database.db);
    expect(rows[0].temp_store).toBe(2);
  });

  it('commit a waiting group when the store closes', async () => {
    const { outcome } = await waitingForCommit('kept');
    await database.close();
    expect(await outcome).toBe('kept');

    database = await openDatabase(`sqlite:${file}`);
    expect(await values()).toEqual(['kept']);
  });

  it('commit a waiting group before a read, which then sees it', async () => {
    const { outcome } = await waitingForCommit('a');
    expect(await values()).toEqual(['a']);
    expect(log).toEqual(['begin immediate', 'commit']);
    expect(await outcome).toBe('a');
  });
});

describe('a durable write (an idempotency claim)', () => {
  const claim = (value: string) =>
    database.durableWrite((db) => insert(db, value)).then(() => log.push(`answered ${value}`));

  it('shares its turn’s COMMIT with the writes beside it, and answers only after it', async () => {
    await Promise.all([claim('key-1'), write('a'), claim('key-2')]);

    expect(await values()).toEqual(['a', 'key-1', 'key-2']);
    expect(log).toEqual(oneGroup('key-1', 'a', 'key-2'));
  });

  it('is durable before its caller goes on: another connection sees it, and the guarded write commits apart', async () => {
    await claim('key');
    const other = await openDatabase(`sqlite:${file}`);
    try {
      expect(await values(other.db)).toEqual(['key']);
    } finally {
      await other.close();
    }
    await write('guarded');

    expect(log).toEqual([...oneGroup('key'), ...oneGroup('guarded')]);
  });
});
