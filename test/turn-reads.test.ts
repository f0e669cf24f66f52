import BetterSqlite3 from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql, type Kysely } from 'kysely';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeTransaction } from '../src/db/commit-groups.js';
import { openDatabase } from '../src/db/connect.js';
import { requestRead, requestTurn } from '../src/core/request-turns.js';
import { rowsRightAway } from '../src/db/direct-reads.js';
import type { Database } from '../src/db/database.js';

/**
 * The reads that run at once on an SQLite store share one read transaction per turn of the
 * event loop, never across the poll of a request (src/db/turn-reads.ts,
 * src/core/request-turns.ts). These tests read through rowsRightAway on a store of their own
 * and write from a second connection to the same file, as another process would. Each marks
 * its turn as one that read a request, as the HTTP server does.
 */

const dir = mkdtempSync(join(tmpdir(), 'wsx-turn-reads-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let database: Database;
let other: BetterSqlite3.Database;

beforeEach(async () => {
  const file = join(dir, `${Math.random().toString(36).slice(2)}.sqlite`);
  database = await openDatabase(`sqlite:${file}`);
  await sql`create table t (v text not null)`.execute(database.db);
  other = new BetterSqlite3(file);
  other.pragma('busy_timeout = 5000');
});
afterEach(async () => {
  other.close();
  await database.close();
});

const table = () => database.db as unknown as Kysely<{ t: { v: string } }>;
/** A read that runs at once, on the calling turn. */
const readNow = (): string[] => {
  const rows = rowsRightAway(database.db, table().selectFrom('t').select('v').orderBy('v').compile(), []);
  if (!Array.isArray(rows)) throw new Error('the read did not run at once');
  return rows.map((row) => row.v);
};
const writeElsewhere = (value: string) => other.prepare('insert into t (v) values (?)').run(value);
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
const nextTick = () => new Promise((resolve) => process.nextTick(resolve));

describe('the reads of one turn on SQLite', () => {
  beforeEach(() => requestRead());

  it('see the store as it was at the turn’s first read, and another connection’s write from the next turn', async () => {
    writeElsewhere('before');
    expect(readNow()).toEqual(['before']);
    // Committed by another connection while the turn's read transaction is open.
    writeElsewhere('during');
    await nextTick();
    expect(readNow()).toEqual(['before']);

    await nextTurn();
    expect(readNow()).toEqual(['before', 'during']);
  });

  it('let another connection write and checkpoint the whole log once the turn is over', async () => {
    readNow();
    writeElsewhere('a');
    await nextTurn();
    // A truncating checkpoint cannot finish while any reader holds a snapshot.
    const [result] = other.pragma('wal_checkpoint(truncate)') as Array<{ busy: number }>;
    expect(result.busy).toBe(0);
  });

  it('end before a write of this store, which later reads of the same turn then see', async () => {
    writeElsewhere('elsewhere');
    expect(readNow()).toEqual(['elsewhere']);
    writeElsewhere('unseen until the write');

    let worked = false;
    const written = writeTransaction(database.db, async (trx) => {
      await sql`insert into t (v) values ('mine')`.execute(trx);
      worked = true;
    });
    // Once the write has run (its group waits for the end of the turn to commit), a read
    // commits it first and opens a new snapshot, which has both.
    for (let hop = 0; hop < 100 && !worked; hop++) await Promise.resolve();
    expect(worked).toBe(true);
    // Its transaction ends a few microtasks after its work.
    for (let hop = 0; hop < 5; hop++) await Promise.resolve();
    expect(readNow()).toEqual(['elsewhere', 'mine', 'unseen until the write']);
    await written;
  });

  it('end before a statement outside the direct reads, which commits at once', async () => {
    readNow();
    await sql`insert into t (v) values ('at once')`.execute(database.db);
    // Not held in the turn's read transaction: another connection sees it in the same turn.
    expect(other.prepare('select v from t').pluck().all()).toEqual(['at once']);
  });

  it('end before a request of a later poll reads: it may have been sent after the snapshot', async () => {
    // A snapshot taken after the poll phase that read the last requests (a timer, a
    // setImmediate callback, the check phase).
    await nextTurn();
    expect(readNow()).toEqual([]);
    writeElsewhere('acknowledged before the request was sent');
    // The next poll reads a request.
    requestRead();
    expect(readNow()).toEqual(['acknowledged before the request was sent']);
  });
});

describe('the turns that read requests', () => {
  it('are numbered once per poll phase that reads one', async () => {
    await nextTurn();
    const before = requestTurn();
    requestRead();
    requestRead();
    await nextTick();
    expect(requestTurn()).toBe(before + 1);
    await nextTurn();
    requestRead();
    expect(requestTurn()).toBe(before + 2);
  });
});
