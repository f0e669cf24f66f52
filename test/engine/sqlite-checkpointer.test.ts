import Database from 'better-sqlite3';
import { sql } from 'kysely';
import { closeSync, existsSync, mkdtempSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/connect.js';
import { SERVING_AUTOCHECKPOINT_PAGES } from '../../src/db/sqlite/checkpointer.js';

const PAGE = 4096;
/** A WAL frame: a 24-byte header and one page. */
const FRAME = 24 + PAGE;

/** The WAL header's checkpoint sequence number: SQLite adds one each time the WAL starts over. */
function walGeneration(file: string): number {
  const header = Buffer.alloc(16);
  const fd = openSync(`${file}-wal`, 'r');
  try {
    readSync(fd, header, 0, header.length, 0);
  } finally {
    closeSync(fd);
  }
  return header.readUInt32BE(12);
}
const folder = mkdtempSync(join(tmpdir(), 'wsx-checkpoints-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

let stores = 0;
async function openStore(backgroundCheckpoints: boolean) {
  const file = join(folder, `store-${++stores}.sqlite`);
  const database = await openDatabase(`sqlite:${file}`, { backgroundCheckpoints });
  await sql`create table filler (id integer primary key, body text not null)`.execute(database.db);
  return { database, file };
}

/** Commits `commits` transactions of `rowsEach` rows of about a page each. */
async function fill(database: Awaited<ReturnType<typeof openStore>>['database'], commits: number, rowsEach: number) {
  for (let n = 0; n < commits; n++)
    await database.db.transaction().execute(async (trx) => {
      for (let row = 0; row < rowsEach; row++)
        await sql`insert into filler (body) values (${'x'.repeat(3500)})`.execute(trx);
    });
}

describe('SQLite checkpoints of the serving store', () => {
  it('copies committed pages into the database file from the worker while the connection stays under its threshold', async () => {
    const { database, file } = await openStore(true);
    try {
      const before = statSync(file).size;
      await fill(database, 300, 1);
      await expect.poll(() => statSync(file).size, { timeout: 5_000 }).toBeGreaterThan(before + 250 * PAGE);
    } finally {
      await database.close();
    }
  });

  it('leaves them in the WAL without the worker (a command’s short-lived store) until SQLite’s own threshold', async () => {
    const { database, file } = await openStore(false);
    try {
      const before = statSync(file).size;
      await fill(database, 300, 1);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(statSync(file).size).toBeLessThan(before + 50 * PAGE);
    } finally {
      await database.close();
    }
  });

  it('starts the WAL over once it passes the serving threshold, so it does not grow without bound', async () => {
    const { database, file } = await openStore(true);
    try {
      const generation = walGeneration(file);
      // Three thresholds' worth of rows of about a page each. How far past one threshold
      // the WAL gets depends on how long the worker's pass holds the checkpoint (a slow
      // disk, a busy machine); what the bound rests on is that it starts over, so it
      // ends smaller than the frames written into it.
      const commits = Math.ceil((SERVING_AUTOCHECKPOINT_PAGES * 3) / 4);
      await fill(database, commits, 4);
      expect(walGeneration(file)).toBeGreaterThan(generation);
      expect(statSync(`${file}-wal`).size).toBeLessThan(commits * 4 * FRAME);
    } finally {
      await database.close();
    }
  });

  it('stops the worker on close with every commit in the database file', async () => {
    const { database, file } = await openStore(true);
    await fill(database, 50, 2);
    await database.close();
    expect(existsSync(`${file}-wal`)).toBe(false);
    const reopened = new Database(file, { readonly: true });
    try {
      expect(reopened.prepare('select count(*) from filler').pluck().get()).toBe(100);
    } finally {
      reopened.close();
    }
  });
});
