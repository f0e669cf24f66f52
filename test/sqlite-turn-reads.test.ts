import BetterSqlite3 from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql, type Kysely } from 'kysely';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/connect.js';
import type { Database } from '../src/db/database.js';

/**
 * The reads outside a write on an SQLite store share one read transaction per turn of the
 * event loop, never across the poll of a request (src/db/sqlite/turn-reads.ts). These tests
 * read on a store of their own and write from a second connection to the same file, as
 * another process would. Each marks its turn as one that read a request, as the HTTP server
 * does (Database.requestsArrived).
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
/** A read outside a write; it runs within the calling turn (its awaits are microtasks). */
const readNow = async (): Promise<string[]> => {
  const rows = await table().selectFrom('t').select('v').orderBy('v').execute();
  return rows.map((row) => row.v);
};
const writeElsewhere = (value: string) => other.prepare('insert into t (v) values (?)').run(value);
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
const nextTick = () => new Promise((resolve) => process.nextTick(resolve));

describe('the reads of one turn on SQLite', () => {
  beforeEach(() => database.requestsArrived());

  it('see the store as it was at the turn’s first read, and another connection’s write from the next turn', async () => {
    writeElsewhere('before');
    expect(await readNow()).toEqual(['before']);
    // Committed by another connection while the turn's read transaction is open.
    writeElsewhere('during');
    await nextTick();
    expect(await readNow()).toEqual(['before']);

    await nextTurn();
    expect(await readNow()).toEqual(['before', 'during']);
  });

  it('let another connection write and checkpoint the whole log once the turn is over', async () => {
    await readNow();
    writeElsewhere('a');
    await nextTurn();
    // A truncating checkpoint cannot finish while any reader holds a snapshot.
    const [result] = other.pragma('wal_checkpoint(truncate)') as Array<{ busy: number }>;
    expect(result.busy).toBe(0);
  });

  it('end before a write of this store, which later reads of the same turn then see', async () => {
    writeElsewhere('elsewhere');
    expect(await readNow()).toEqual(['elsewhere']);
    writeElsewhere('unseen until the write');

    let worked = false;
    const written = database.write('ws', async (trx) => {
      await sql`insert into t (v) values ('mine')`.execute(trx);
      worked = true;
    });
    // Once the write has run (its group waits for the end of the turn to commit), a read
    // commits it first and opens a new snapshot, which has both.
    for (let hop = 0; hop < 100 && !worked; hop++) await Promise.resolve();
    expect(worked).toBe(true);
    // Its transaction ends a few microtasks after its work.
    for (let hop = 0; hop < 5; hop++) await Promise.resolve();
    expect(await readNow()).toEqual(['elsewhere', 'mine', 'unseen until the write']);
    await written;
  });

  it('end before a statement outside the direct reads, which commits at once', async () => {
    await readNow();
    await sql`insert into t (v) values ('at once')`.execute(database.db);
    // Not held in the turn's read transaction: another connection sees it in the same turn.
    expect(other.prepare('select v from t').pluck().all()).toEqual(['at once']);
  });

  it('end before a request of a later poll reads: it may have been sent after the snapshot', async () => {
    // A snapshot taken after the poll phase that read the last requests (a timer, a
    // setImmediate callback, the check phase).
    await nextTurn();
    expect(await readNow()).toEqual([]);
    writeElsewhere('acknowledged before the request was sent');
    // The next poll reads a request.
    database.requestsArrived();
    expect(await readNow()).toEqual(['acknowledged before the request was sent']);
  });
});
